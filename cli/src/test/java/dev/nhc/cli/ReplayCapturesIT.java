package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        assertTrue(bad.out().contains("\"name\":\"dcgm\",\"probe\":\"dcgm.health\",\"status\":\"completed\",\"severity\":\"unknown\""), bad.out());
        assertTrue(bad.out().contains("cannot parse dcgmi health capture"), bad.out());
    }

    // ---- issue 13 item 13: replay inputs are bounded and must be text ----

    private void assertRefused(NhcProcess.Result r, String message) {
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(message), "expected '" + message + "' in: " + r.err());
        assertTrue(r.err().contains("nothing was judged"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals("", r.out());
    }

    /** A sparse file: 300 MB long, no disk used. */
    private Path sparse(String name, long size) throws Exception {
        Path p = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
        return p;
    }

    @Test
    void aCaptureOf300MBIsTooLargeNotAnOutOfMemoryCrash() throws Exception {
        Path big = sparse("smi-q.txt", 300_000_000L);
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--nvidia-smi-q", big.toString()),
                big + " is 300000000 bytes; a capture may be at most 16777216 bytes (16 MiB)");
        Path health = sparse("health.json", 300_000_000L);
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--dcgmi-health-json", health.toString()),
                health + " is 300000000 bytes; a capture may be at most 16777216 bytes (16 MiB)");
        Path log = sparse("kern.log", 300_000_000L);
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--kernel-log", log.toString()),
                log + " is 300000000 bytes; a capture may be at most 268435456 bytes (256 MiB)");
    }

    @Test
    void anEndlessInputIsTooLarge() throws Exception {
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--nvidia-smi-q", "/dev/zero"),
                "/dev/zero is more than 16777216 bytes; a capture may be at most 16777216 bytes (16 MiB)");
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--kernel-log", "/dev/zero"),
                "/dev/zero is more than 268435456 bytes; a capture may be at most 268435456 bytes (256 MiB)");
    }

    @Test
    void binaryGarbageSaysSoAndWhere() throws Exception {
        byte[] garbage = ("==============NVSMI LOG==============\n\nTimestamp : x\n").getBytes(StandardCharsets.US_ASCII);
        byte[] bytes = java.util.Arrays.copyOf(garbage, garbage.length + 64);
        bytes[garbage.length + 3] = 0x02;
        Path smi = dir.resolve("smi-q.bin");
        Files.write(smi, bytes);
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--nvidia-smi-q", smi.toString()),
                smi + " is not text (binary data at byte " + (garbage.length) + ")");

        Path health = dir.resolve("health.json");
        Files.write(health, new byte[] {'{', '"', 'a', (byte) 0xC3, '(', '"', '}'}); // not UTF-8: "Input length = 1" before
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--dcgmi-health-json", health.toString()),
                health + " is not text (binary data at byte 3)");

        Path gz = dir.resolve("kern.log.2.gz");
        Files.write(gz, new byte[] {0x1f, (byte) 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03});
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--kernel-log", gz.toString()),
                gz + " is not text (binary data at byte 0)");
    }

    /** Issue 13 item 6, replay path: an XID after a crash's NUL padding (64 MiB of it, without a newline) is judged. */
    @Test
    void anXidAfterNulPaddingInAnAttachedKernelLogFails() throws Exception {
        Path log = dir.resolve("kern.log");
        Files.writeString(log, "[  12.000001] usb 1-1: new high-speed USB device\n");
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.setLength(f.length() + (64L << 20) + 5); // the hole reads as NULs
            f.seek(f.length());
            f.write("[1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.\n"
                    .getBytes(StandardCharsets.US_ASCII));
        }
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "--verbose", "-c", config().toString(), "--kernel-log", log.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("XID 79"), r.out());
    }

    @Test
    void withoutAnyCaptureItIsAUsageError() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("needs at least one capture"), r.err());
    }
}
