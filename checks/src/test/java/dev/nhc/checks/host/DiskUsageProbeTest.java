package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What disk.usage observes; its verdicts are in {@link HostDefaultRulesTest}. */
class DiskUsageProbeTest {
    private static final ProbeSpec SPEC = new DiskUsageProbe().spec();

    @TempDir
    Path root;

    /** A root whose mount table lists / : statvfs measures the root itself, the temp directory's filesystem. */
    private TestProbeContext mountedHere() throws IOException {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ mount: / }");
        ctx.write("/proc/self/mounts", "/dev/vda / ext4 rw 0 0\n");
        return ctx;
    }

    @Test
    void measuresARealFilesystemAsDfDoes() throws Exception {
        ProbeResult r = new DiskUsageProbe().probe(mountedHere());
        Observation o = r.observations().get(0);
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/"), o.entity());
        assertEquals(true, o.get("mounted"));
        double used = (Double) o.get("used_percent");
        long free = (Long) o.get("free_bytes");
        long size = (Long) o.get("size_bytes");
        assertTrue(used >= 0 && used <= 100, "used_percent " + used);
        assertTrue(free > 0, "free_bytes " + free);
        assertTrue(size >= free + (Long) o.get("used_bytes"), o.toString());

        FileStore store = Files.getFileStore(root);
        assertEquals(store.getTotalSpace(), size);
        // Other processes write to the same disk meanwhile: the same figure, give or take 1 % of the disk.
        assertTrue(Math.abs(store.getUsableSpace() - free) <= size / 100, "FileStore usable " + store.getUsableSpace() + " vs " + free);
    }

    @Test
    void readsInodeCountsThroughStatvfs() throws Exception {
        Statvfs.Result s = Statvfs.viaLibc(root);
        assertTrue(s.bsize() > 0 && s.frsize() > 0, s.toString());
        assertTrue(s.namemax() > 0, s.toString());
        assertTrue(s.ffree() <= s.files(), s.toString());
        assertTrue(s.bavail() <= s.bfree() && s.bfree() <= s.blocks(), s.toString());
        Observation o = DiskUsageProbe.observe(Entity.of(Entity.Kind.MOUNT, "/t"), s, false);
        if (s.files() > 0) {
            double iused = (Double) o.get("inodes_used_percent");
            assertTrue(iused >= 0 && iused <= 100, "inodes_used_percent " + iused);
            assertEquals(s.ffree(), o.get("inodes_free"));
        } else {
            assertNull(o.get("inodes_used_percent"), "a filesystem without an inode table has no inode percentage");
        }
    }

    @Test
    void inodesAreReadOnlyWhenTheRulesOrMessagesUseThem() throws Exception {
        List<Boolean> asked = new java.util.ArrayList<>();
        DiskUsageProbe probe = new DiskUsageProbe((p, inodes) -> {
            asked.add(inodes);
            return new Statvfs.Result(4096, 4096, 1000, 500, 500, 100, 50, 50, 0, 0, 255);
        });
        probe.probe(mountedHere().fieldsRead("used_percent", "free_bytes"));
        probe.probe(mountedHere().fieldsRead("used_percent", "inodes_free"));
        probe.probe(mountedHere().fieldsRead("inodes_used_percent"));
        assertEquals(List.of(false, true, true), asked);
    }

    @Test
    void spaceAloneIsMeasuredWithoutTheNativeCall() throws Exception {
        Observation o = new DiskUsageProbe().probe(mountedHere().fieldsRead("used_percent")).observations().get(0);
        assertEquals(Files.getFileStore(root).getTotalSpace(), o.get("size_bytes"));
        assertFalse(o.fields().containsKey("inodes_free"), "no rule reads inodes: " + o);
        Observation all = new DiskUsageProbe().probe(mountedHere()).observations().get(0);
        if (Statvfs.viaLibc(root).files() > 0) {
            assertTrue(all.fields().containsKey("inodes_free"), "the default rules read inodes: " + all);
        }
    }

    @Test
    void libcAndFileStoreAgreeOnTheSpace() throws Exception {
        Statvfs.Result viaLibc = Statvfs.viaLibc(root);
        Statvfs.Result viaStore = Statvfs.viaFileStore(root);
        assertEquals(viaLibc.blocks() * viaLibc.frsize(), viaStore.blocks());
        long size = viaStore.blocks();
        assertTrue(Math.abs(viaLibc.bavail() * viaLibc.frsize() - viaStore.bavail()) <= size / 100);
        assertFalse(viaStore.inodesKnown());
    }

    @Test
    void statvfsOfAMissingPathSaysWhy() {
        Path missing = root.resolve("no-such-dir");
        IOException e = assertThrows(IOException.class, () -> Statvfs.viaLibc(missing));
        assertEquals("statvfs " + missing + ": No such file or directory (errno 2)", e.getMessage());
    }

    @Test
    void aMountPointThatIsNotMountedIsObservedWithoutMeasuring() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ mount: /scratch/ }");
        ctx.write("/proc/self/mounts", "/dev/vda / ext4 rw 0 0\n");
        ProbeResult r = new DiskUsageProbe((p, inodes) -> {
            throw new AssertionError("statvfs must not run for an unmounted path: it would measure / instead");
        }).probe(ctx);
        Observation o = r.observations().get(0);
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/scratch"), o.entity());
        assertEquals(Map.of("mounted", false), o.fields());
        assertTrue(o.readable());
    }

    @Test
    void aFilesystemStatvfsCannotReadIsUnreadableWithTheReason() throws Exception {
        ProbeResult r = new DiskUsageProbe((p, inodes) -> {
            throw new IOException("statvfs " + p + ": Input/output error (errno 5)");
        }).probe(mountedHere());
        Observation o = r.observations().get(0);
        assertFalse(o.readable());
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/"), o.entity());
        assertEquals("statvfs " + root + ": Input/output error (errno 5)", o.problem());
    }

    @Test
    void reservedBlocksCountAsFullAsInDf() throws Exception {
        // 1000 blocks of 4 KiB, 60 free of which 50 are reserved for root: df shows 99 % used (940 / (940 + 10)).
        Statvfs.Result full = new Statvfs.Result(4096, 4096, 1000, 60, 10, 100, 1, 1, 0, 0, 255);
        Observation o = new DiskUsageProbe((p, inodes) -> full).probe(mountedHere()).observations().get(0);
        assertEquals(98.95, o.get("used_percent"));
        assertEquals(10L * 4096, o.get("free_bytes"));
        assertEquals(940L * 4096, o.get("used_bytes"));
        assertEquals(1000L * 4096, o.get("size_bytes"));
        assertEquals(99.0, o.get("inodes_used_percent"));
        assertEquals(1L, o.get("inodes_free"));
    }

    @Test
    void dfPercentagesAreRoundedUpAsGnuDfPrintsThem() throws Exception {
        // 89.004 % used: nhc's own figure keeps two decimals, df prints 90 %; inodes 1 of 3 used: 33.33 %, df -i 34 %.
        Statvfs.Result s = new Statvfs.Result(4096, 4096, 100_000, 10_996, 10_996, 3, 2, 2, 0, 0, 255);
        Observation o = new DiskUsageProbe((p, inodes) -> s).probe(mountedHere()).observations().get(0);
        assertEquals(89.0, o.get("used_percent"));
        assertEquals(90L, o.get("df_use_percent"));
        assertEquals(33.33, o.get("inodes_used_percent"));
        assertEquals(34L, o.get("df_inodes_use_percent"));
        assertEquals(1L, o.get("inodes_used"));
        assertEquals(89L, DiskUsageProbe.dfPercent(89, 100), "an exact percentage is not rounded up");
        assertEquals(1L, DiskUsageProbe.dfPercent(1, 1_000_000), "anything above 0 shows as at least 1 %");
        assertEquals(0L, DiskUsageProbe.dfPercent(0, 1_000_000));
    }

    @Test
    void theFilesystemIsMeasuredUnderTheSystemRoot() throws Exception {
        List<Path> measured = new java.util.ArrayList<>();
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ mount: /scratch }");
        ctx.write("/proc/self/mounts", "/dev/vda / ext4 rw 0 0\nfs01:/export/scratch /scratch nfs4 rw 0 0\n");
        Observation o = new DiskUsageProbe((p, inodes) -> {
            measured.add(p);
            return new Statvfs.Result(4096, 4096, 1000, 500, 500, 100, 50, 50, 0, 0, 255);
        }).probe(ctx).observations().get(0);
        assertEquals(List.of(root.resolve("scratch")), measured, "a root for a test or a container is measured as a whole");
        assertEquals(true, o.get("remote"), "a server:/export source is remote for df -l");
    }

    @Test
    void remoteIsWhatGnuDfLeavesOutWithDashL() {
        assertTrue(RemoteFilesystems.isRemote("fs01:/export/home", "nfs4"));
        assertTrue(RemoteFilesystems.isRemote("//nas/share", "cifs"));
        assertTrue(RemoteFilesystems.isRemote("scratch", "gpfs"));
        assertTrue(RemoteFilesystems.isRemote("-hosts", "autofs"));
        assertFalse(RemoteFilesystems.isRemote("/dev/md0p2", "ext4"));
        assertFalse(RemoteFilesystems.isRemote("tmpfs", "tmpfs"));
        assertFalse(RemoteFilesystems.isRemote("//not-smb", "fuse.sshfs"), "a // source is remote only for SMB types");
    }

    @Test
    void aMountPointThatIsNotMountedPassesWhenTheCheckSaysSo() throws Exception {
        Pipeline p = new Pipeline(root, new DiskUsageProbe());
        p.root().resolve("proc/self").toFile().mkdirs();
        Files.writeString(p.root().resolve("proc/self/mounts"), "/dev/vda / ext4 rw 0 0\n");
        var strict = Pipeline.only(p.run("- { name: s, use: disk.usage, with: { mount: /scratch }, fail: { used_percent: '> 90' } }"), "s");
        assertEquals(dev.nhc.model.Severity.UNKNOWN, strict.severity(), "a replaced fail rule still cannot pass what it could not measure");
        var lenient = Pipeline.only(p.run("- { name: s, use: disk.usage, with: { mount: /scratch, if_unmounted: pass }, "
                + "fail: { used_percent: '> 90' } }"), "s");
        assertEquals(dev.nhc.model.Severity.PASS, lenient.severity(), lenient.toString());
        var byDefault = Pipeline.only(p.run("- { name: s, use: disk.usage, with: { mount: /scratch } }"), "s");
        assertEquals(dev.nhc.model.Severity.FAIL, byDefault.severity());
    }

    @Test
    void aFilesystemWithoutAnInodeTableHasNoInodeFields() throws Exception {
        Statvfs.Result btrfs = new Statvfs.Result(4096, 4096, 1000, 500, 500, 0, 0, 0, 0, 0, 255);
        Observation o = new DiskUsageProbe((p, inodes) -> btrfs).probe(mountedHere()).observations().get(0);
        assertEquals(50.0, o.get("used_percent"));
        assertFalse(o.fields().containsKey("inodes_used_percent"));
        assertFalse(o.fields().containsKey("inodes_free"));
    }

    @Test
    void anEmptyPseudoFilesystemHasNoPercentage() {
        Observation o = DiskUsageProbe.observe(Entity.of(Entity.Kind.MOUNT, "/proc"), new Statvfs.Result(4096, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 255),
                false);
        assertFalse(o.fields().containsKey("used_percent"));
        assertFalse(o.fields().containsKey("df_use_percent"));
        assertEquals(0L, o.get("size_bytes"));
    }

    @Test
    void noMountTableMakesTheCheckUnknownWithThePath() {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ mount: / }");
        IOException e = assertThrows(IOException.class, () -> new DiskUsageProbe().probe(ctx));
        assertTrue(e.getMessage().contains("proc/self/mounts"), e.getMessage());
    }

    @Test
    void aRelativeOrMissingMountPointIsAConfigError() {
        Pipeline p = new Pipeline(root, new DiskUsageProbe());
        String check = "- { name: scratch, use: disk.usage, with: { mount: scratch } }";
        assertEquals("'mount' in check 'scratch' (disk.usage) with: 'scratch' must be an absolute path such as /scratch",
                ConfigErrors.at(p, check, "scratch }"));
        String none = "- { name: scratch, use: disk.usage, with: { } }";
        assertTrue(ConfigErrors.at(p, none, "{ }").contains("needs 'mount'"));
    }
}
