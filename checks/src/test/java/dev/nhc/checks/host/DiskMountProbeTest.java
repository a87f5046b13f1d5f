package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskMountProbeTest {
    private static final String MOUNTS = """
            sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
            proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
            /dev/nvme0n1p2 / xfs ro,relatime,attr2,inode64 0 0
            /dev/nvme1n1 /scratch xfs rw,nosuid,nodev,relatime 0 0
            nfs01:/export/home /home nfs4 rw,relatime,vers=4.2,hard,proto=tcp 0 0
            tmpfs /mnt/with\\040space tmpfs rw,nosuid 0 0
            """;
    private static final ProbeSpec SPEC = new DiskMountProbe().spec();

    @TempDir
    Path root;
    private TestProbeContext files;

    @BeforeEach
    void mountTable() throws Exception {
        files = new TestProbeContext(root);
        files.write("/proc/self/mounts", MOUNTS);
    }

    /** What the probe observes for a check with this {@code with:}. */
    private Observation observe(String with) throws Exception {
        return new DiskMountProbe().probe(new TestProbeContext(root).with(SPEC, with)).observations().get(0);
    }

    /** The one finding of a check {@code m} with this {@code with:}, judged as nhc run judges it. */
    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new DiskMountProbe()).run("- { name: m, use: disk.mount, with: " + with + " }"), "m");
    }

    @Test
    void aMatchingMountPassesAndIsDescribed() throws Exception {
        String with = "{ mount: /home, fstype: nfs4, source: 'nfs01:/export/home', options: [rw, vers=4.2, hard] }";
        Observation o = observe(with);
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/home"), o.entity());
        assertEquals(true, o.get("mounted"));
        assertEquals("nfs4", o.get("fstype"));
        assertEquals("nfs01:/export/home", o.get("source"));
        assertEquals("rw,relatime,vers=4.2,hard,proto=tcp", o.get("options"));
        assertEquals(false, o.get("read_only"));
        assertEquals(true, o.get("source_matches"));
        assertEquals(true, o.get("options_match"));
        assertFalse(o.fields().containsKey("options_missing"));
        Finding f = judge(with);
        assertEquals(Severity.PASS, f.severity(), f.message());
    }

    @Test
    void withoutExpectationsOnlyTheMountIsObserved() throws Exception {
        Observation o = observe("{ mount: /scratch }");
        assertFalse(o.fields().containsKey("source_matches"));
        assertFalse(o.fields().containsKey("options_match"));
        assertEquals(Severity.PASS, judge("{ mount: /scratch }").severity());
    }

    @Test
    void aRootRemountedReadOnlyFailsWhenRwIsExpected() throws Exception {
        Observation o = observe("{ mount: /, options: [rw] }");
        assertEquals(true, o.get("read_only"));
        assertEquals(false, o.get("options_match"));
        assertEquals("rw", o.get("options_missing"));
        Finding f = judge("{ mount: /, options: [rw] }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/"), f.entity());
        assertEquals("/ is mounted read-only (expected rw)", f.message());
    }

    @Test
    void aMissingMountFailsAndObservesMountedFalse() throws Exception {
        assertEquals(Map.of("mounted", false), observe("{ mount: /scratch2, fstype: xfs }").fields());
        Finding f = judge("{ mount: /scratch2, fstype: xfs }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/scratch2 is not mounted", f.message());
    }

    @Test
    void aConfigsOwnFailStillDoesNotPassAMissingMount() throws Exception {
        Pipeline p = new Pipeline(root, new DiskMountProbe());
        Finding f = Pipeline.only(p.run("- { name: m, use: disk.mount, with: { mount: /scratch2 }, fail: { read_only: true } }"), "m");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("/scratch2 is not mounted", f.message());
    }

    @Test
    void wrongTypeAndSourceAreReportedTogetherWithExpectedAndActual() throws Exception {
        Finding f = judge("{ mount: /scratch, fstype: ext4, source: /dev/nvme2n1 }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/scratch is xfs (expected ext4) and mounted from /dev/nvme1n1 (expected /dev/nvme2n1)", f.message());
        assertEquals("/scratch is xfs (expected ext4)", judge("{ mount: /scratch, fstype: ext4 }").message());
        assertEquals("/scratch is mounted from /dev/nvme1n1 (expected /dev/nvme2n1)",
                judge("{ mount: /scratch, fstype: xfs, source: /dev/nvme2n1 }").message());
    }

    @Test
    void aMissingOrDifferentOptionFailsNamingWhatIsThere() throws Exception {
        assertEquals("/scratch lacks mount option noexec (has rw,nosuid,nodev,relatime)",
                judge("{ mount: /scratch, options: [rw, noexec] }").message());
        assertEquals("/home lacks mount option vers=3 (has rw,relatime,vers=4.2,hard,proto=tcp)",
                judge("{ mount: /home/, options: [vers=3] }").message());
        assertEquals("/scratch is mounted read-write (expected ro)", judge("{ mount: /scratch, options: [ro] }").message());
        assertEquals("/scratch lacks mount option noexec,nodiratime (has rw,nosuid,nodev,relatime)",
                judge("{ mount: /scratch, options: [nosuid, noexec, nodiratime] }").message());
    }

    @Test
    void aConfigsFailReplacesTheDefaultsAndWarnNoneDropsNothingElse() throws Exception {
        Pipeline p = new Pipeline(root, new DiskMountProbe());
        // Type and options no longer fail: only what the config's own rule says.
        String own = "- { name: m, use: disk.mount, with: { mount: /scratch, fstype: ext4, options: [noexec] }, fail: { read_only: true } }";
        assertEquals(Severity.PASS, Pipeline.severity(p.run(own), "m"));
        Finding mine = Pipeline.only(p.run("- { name: m, use: disk.mount, with: { mount: / }, fail: { read_only: true } }"), "m");
        assertEquals(Severity.FAIL, mine.severity());
        assertEquals("/: read_only is true", mine.message());
        // disk.mount has no default warnings: warn: none changes nothing.
        String warnNone = "- { name: m, use: disk.mount, with: { mount: /, options: [rw] }, warn: none }";
        assertEquals("/ is mounted read-only (expected rw)", Pipeline.only(p.run(warnNone), "m").message());
    }

    @Test
    void anOverMountDecides() throws Exception {
        files.write("/proc/self/mounts", MOUNTS + "/dev/sdz1 / ext4 rw,relatime 0 0\n");
        assertEquals("/dev/sdz1", observe("{ mount: / }").get("source"));
        assertEquals(Severity.PASS, judge("{ mount: /, fstype: ext4, options: [rw] }").severity());
    }

    @Test
    void findsMountPointsWithEscapedSpaces() throws Exception {
        assertEquals(true, observe("{ mount: '/mnt/with space', fstype: tmpfs }").get("mounted"));
        assertEquals(Severity.PASS, judge("{ mount: '/mnt/with space', fstype: tmpfs }").severity());
    }

    @Test
    void aSourceByLabelOrUuidMatchesTheDeviceItLinksTo() throws Exception {
        files.write("/dev/nvme1n1", "");
        Files.createDirectories(files.sys("/dev/disk/by-label"));
        Files.createDirectories(files.sys("/dev/disk/by-uuid"));
        Files.createSymbolicLink(files.sys("/dev/disk/by-label/scratch"), Path.of("../../nvme1n1"));
        Files.createSymbolicLink(files.sys("/dev/disk/by-uuid/0b1c-77"), Path.of("../../nvme1n1"));
        assertEquals(true, observe("{ mount: /scratch, source: LABEL=scratch }").get("source_matches"));
        assertEquals(true, observe("{ mount: /scratch, source: UUID=0b1c-77 }").get("source_matches"));
        assertEquals(true, observe("{ mount: /scratch, source: /dev/disk/by-label/scratch }").get("source_matches"));
        assertEquals(false, observe("{ mount: /scratch, source: LABEL=home }").get("source_matches"));
        assertEquals(Severity.PASS, judge("{ mount: /scratch, source: LABEL=scratch }").severity());
        assertEquals("/scratch is mounted from /dev/nvme1n1 (expected LABEL=home)", judge("{ mount: /scratch, source: LABEL=home }").message());
    }

    @Test
    void fallsBackToProcMounts() throws Exception {
        Files.delete(files.sys("/proc/self/mounts"));
        files.write("/proc/mounts", "/dev/vda / ext4 rw 0 0\n");
        assertEquals("ext4", observe("{ mount: /, options: [rw] }").get("fstype"));
        assertEquals(Severity.PASS, judge("{ mount: /, options: [rw] }").severity());
    }

    @Test
    void badExpectationsAreConfigErrors() {
        Pipeline p = new Pipeline(root, new DiskMountProbe());
        assertTrue(ConfigErrors.at(p, "- { name: m, use: disk.mount, with: { mount: scratch } }", "scratch }")
                .endsWith("'scratch' must be an absolute path such as /scratch"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: disk.mount, with: { mount: /s, options: [\"rw,nosuid\"] } }", "[\"rw")
                .endsWith("'rw,nosuid' is not one mount option; write each as its own item, e.g. [rw, nosuid]"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: disk.mount, with: { mount: /s, fstype: 'nfs 4' } }", "'nfs 4'")
                .endsWith("'nfs 4' is not a filesystem type such as xfs or nfs4 (one word)"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: disk.mount, with: { mount: /s, source: ' ' } }", "' '")
                .endsWith("the expected source is empty"));
    }
}
