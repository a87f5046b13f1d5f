package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @TempDir
    Path root;

    private ProbeResult run(Map<String, Object> with) throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(with);
        if (!Files.exists(ctx.sys("/proc/self/mounts"))) {
            ctx.write("/proc/self/mounts", MOUNTS);
        }
        return new DiskMountProbe().probe(ctx);
    }

    @Test
    void aMatchingMountPassesAndIsDescribed() throws Exception {
        ProbeResult r = run(Map.of("mount", "/home", "fstype", "nfs4", "source", "nfs01:/export/home",
                "options", List.of("rw", "vers=4.2", "hard")));
        assertEquals(List.of(), r.findings());
        Observation o = r.observations().get(0);
        assertEquals("/home", o.entity());
        assertEquals(true, o.get("mounted"));
        assertEquals("nfs4", o.get("fstype"));
        assertEquals("nfs01:/export/home", o.get("source"));
        assertEquals("rw,relatime,vers=4.2,hard,proto=tcp", o.get("options"));
        assertEquals(false, o.get("read_only"));
    }

    @Test
    void aRootRemountedReadOnlyFailsWhenRwIsExpected() throws Exception {
        ProbeResult r = run(Map.of("mount", "/", "options", List.of("rw")));
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/", f.entity());
        assertEquals("/ is mounted read-only (expected rw)", f.message());
        assertEquals(true, r.observations().get(0).get("read_only"));
    }

    @Test
    void aMissingMountFailsAndObservesMountedFalse() throws Exception {
        ProbeResult r = run(Map.of("mount", "/scratch2"));
        assertEquals("/scratch2 is not mounted", r.findings().get(0).message());
        assertEquals(Severity.FAIL, r.findings().get(0).severity());
        assertEquals(Map.of("mounted", false), r.observations().get(0).fields());
    }

    @Test
    void wrongTypeAndSourceAreReportedTogetherWithExpectedAndActual() throws Exception {
        ProbeResult r = run(Map.of("mount", "/scratch", "fstype", "ext4", "source", "/dev/nvme2n1"));
        assertEquals(1, r.findings().size());
        assertEquals("/scratch is xfs (expected ext4); /scratch is mounted from /dev/nvme1n1 (expected /dev/nvme2n1)",
                r.findings().get(0).message());
    }

    @Test
    void aMissingOrDifferentOptionFails() throws Exception {
        assertEquals("/scratch lacks mount option noexec (has rw,nosuid,nodev,relatime)",
                run(Map.of("mount", "/scratch", "options", List.of("rw", "noexec"))).findings().get(0).message());
        assertEquals("/home has vers=4.2 (expected vers=3)",
                run(Map.of("mount", "/home/", "options", List.of("vers=3"))).findings().get(0).message());
        assertEquals("/scratch is mounted read-write (expected ro)",
                run(Map.of("mount", "/scratch", "options", List.of("ro"))).findings().get(0).message());
    }

    @Test
    void anOverMountDecides() throws Exception {
        new TestProbeContext(root).write("/proc/self/mounts", MOUNTS + "/dev/sdz1 / ext4 rw,relatime 0 0\n");
        ProbeResult r = run(Map.of("mount", "/", "fstype", "ext4", "options", List.of("rw")));
        assertEquals(List.of(), r.findings());
        assertEquals("/dev/sdz1", r.observations().get(0).get("source"));
    }

    @Test
    void findsMountPointsWithEscapedSpaces() throws Exception {
        ProbeResult r = run(Map.of("mount", "/mnt/with space", "fstype", "tmpfs"));
        assertEquals(List.of(), r.findings());
        assertEquals(true, r.observations().get(0).get("mounted"));
    }

    @Test
    void aSourceByLabelOrUuidMatchesTheDeviceItLinksTo() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/dev/nvme1n1", "");
        Files.createDirectories(ctx.sys("/dev/disk/by-label"));
        Files.createDirectories(ctx.sys("/dev/disk/by-uuid"));
        Files.createSymbolicLink(ctx.sys("/dev/disk/by-label/scratch"), Path.of("../../nvme1n1"));
        Files.createSymbolicLink(ctx.sys("/dev/disk/by-uuid/0b1c-77"), Path.of("../../nvme1n1"));
        assertEquals(List.of(), run(Map.of("mount", "/scratch", "source", "LABEL=scratch")).findings());
        assertEquals(List.of(), run(Map.of("mount", "/scratch", "source", "UUID=0b1c-77")).findings());
        assertEquals(List.of(), run(Map.of("mount", "/scratch", "source", "/dev/disk/by-label/scratch")).findings());
        assertEquals("/scratch is mounted from /dev/nvme1n1 (expected LABEL=home)",
                run(Map.of("mount", "/scratch", "source", "LABEL=home")).findings().get(0).message());
    }

    @Test
    void fallsBackToProcMounts() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("mount", "/", "options", List.of("rw")));
        ctx.write("/proc/mounts", "/dev/vda / ext4 rw 0 0\n");
        ProbeResult r = new DiskMountProbe().probe(ctx);
        assertEquals(List.of(), r.findings());
        assertEquals("ext4", r.observations().get(0).get("fstype"));
    }
}
