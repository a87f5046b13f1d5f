package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc replay} with kernel-log and dcgmi captures the test writes itself. */
class ReplayCapturesIT {
    @TempDir
    Path dir;

    private Path config() throws Exception {
        Path c = dir.resolve("nhc.yaml");
        Files.writeString(c, "nhc: 1\nchecks:\n  - { name: xid, use: gpu.xid }\n  - { name: dcgm, use: dcgm.health }\n"
                + "  - { name: diag, use: dcgm.diag, every: 6h }\n  - { name: ecc, use: gpu.ecc }\n");
        return c;
    }

    @Test
    void aFatalXidInAnAttachedKernelLogFailsAndChecksWithoutDataAreSkipped() throws Exception {
        Path log = dir.resolve("kern.log");
        Files.writeString(log, "[  12.000001] usb 1-1: new high-speed USB device\n"
                + "[1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "--verbose", "-c", config().toString(), "--kernel-log", log.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("XID 79"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("SKIP    ecc")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("SKIP    dcgm")), r.out());
    }

    @Test
    void applicationXidsAloneDoNotFailTheNode() throws Exception {
        Path log = dir.resolve("kern.log");
        Files.writeString(log, "2024-11-15T05:39:15,491363+00:00 NVRM: Xid (PCI:0000:3b:00): 13, pid=42, name=train.py, Graphics Exception\n"
                + "2024-11-15T05:39:16,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=train.py, Ch 00000010\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--kernel-log", log.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
    }

    @Test
    void dcgmiCapturesAreJudgedAndGarbageIsNotAPass() throws Exception {
        Path health = dir.resolve("health.json");
        Files.writeString(health, "{\"body\":{\"Overall Health\":{\"value\":\"Healthy\"}},\"header\":[\"Health Monitor Report\"]}");
        NhcProcess.Result ok = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--dcgmi-health-json", health.toString());
        assertEquals(0, ok.exit(), ok.out() + ok.err());
        Files.writeString(health, "{\"body\": {\"Overall Health\": ");
        NhcProcess.Result bad = NhcProcess.run(dir, Map.of(), "replay", "--json", "-c", config().toString(), "--dcgmi-health-json", health.toString());
        assertTrue(bad.out().contains("\"severity\":\"unknown\""), bad.out());
        // dcgm.health declares its tags (gpu, dcgm), which the report lists between probe and status.
        assertTrue(java.util.regex.Pattern.compile("\"name\":\"dcgm\",\"probe\":\"dcgm.health\",(\"tags\":\\[[^]]*],)?"
                + "\"status\":\"completed\",\"severity\":\"unknown\"").matcher(bad.out()).find(), bad.out());
        assertTrue(bad.out().contains("cannot parse dcgmi health capture"), bad.out());
    }

    @Test
    void withoutAnyCaptureItIsAUsageError() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("needs at least one capture"), r.err());
    }
}
