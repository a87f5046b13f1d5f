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
        // dcgm.health declares its tags (gpu, dcgm), which the report lists between probe and status.
        assertTrue(java.util.regex.Pattern.compile("\"name\":\"dcgm\",\"probe\":\"dcgm.health\",(\"tags\":\\[[^]]*],)?"
                + "\"status\":\"completed\",\"severity\":\"unknown\"").matcher(bad.out()).find(), bad.out());
        assertTrue(bad.out().contains("cannot parse dcgmi health capture"), bad.out());
    }

    /** ibstat's output for eight NDR HCAs, mlx5_3 down if asked, then the panic of a ninth device it could not read. */
    private Path ibstat(boolean oneDown) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            boolean down = oneDown && i == 3;
            b.append("CA 'mlx5_").append(i).append("'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n")
                    .append("\tHardware version: 0\n\tNode GUID: 0x946dae0300a1b2c").append(i).append("\n")
                    .append("\tSystem image GUID: 0x946dae0300a1b2c").append(i).append("\n\tPort 1:\n")
                    .append(down ? "\t\tState: Down\n\t\tPhysical state: Polling\n\t\tRate: 10\n"
                            : "\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n")
                    .append("\t\tBase lid: ").append(20 + i).append("\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0xa751e848\n")
                    .append("\t\tPort GUID: 0x946dae0300a1b2c").append(i).append("\n\t\tLink layer: InfiniBand\n");
        }
        b.append("ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n");
        Path f = dir.resolve(oneDown ? "ibstat-down.txt" : "ibstat.txt");
        Files.writeString(f, b.toString());
        return f;
    }

    @Test
    void ibstatOutputIsJudgedOnWhatItPrintedEvenWhenItPanicked() throws Exception {
        Path c = dir.resolve("ib.yaml");
        Files.writeString(c, "nhc: 1\nchecks:\n  - { name: ib, use: ib.ports, with: { count: 8, rate: 400 } }\n  - { name: ecc, use: gpu.ecc }\n");
        NhcProcess.Result ok = NhcProcess.run(dir, Map.of(), "replay", "--verbose", "-c", c.toString(), "--ibstat", ibstat(false).toString());
        assertEquals(0, ok.exit(), ok.out() + ok.err());
        assertTrue(ok.out().contains("ibstat prints no counters"), ok.out());
        assertTrue(ok.out().contains("ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed"), ok.out());
        assertTrue(ok.out().lines().anyMatch(l -> l.startsWith("SKIP    ecc")), ok.out());

        NhcProcess.Result down = NhcProcess.run(dir, Map.of(), "replay", "-c", c.toString(), "--ibstat", ibstat(true).toString());
        assertEquals(1, down.exit(), down.out() + down.err());
        assertTrue(down.out().contains("only 7 of 8 ports up: mlx5_3/1 DOWN (Polling)"), down.out());

        // the shipped example's ib check is the same: 8 ports at 400 Gb/s
        NhcProcess.Result example = NhcProcess.run(dir, Map.of(), "replay", "-c", NhcProcess.APP.resolve("examples/gpu-node.yaml").toString(),
                "--ibstat", ibstat(true).toString());
        assertEquals(1, example.exit(), example.out() + example.err());
        assertTrue(example.out().contains("only 7 of 8 ports up: mlx5_3/1 DOWN (Polling)"), example.out());

        Path cut = dir.resolve("cut.txt");
        Files.writeString(cut, "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n");
        NhcProcess.Result bad = NhcProcess.run(dir, Map.of(), "replay", "-c", c.toString(), "--ibstat", cut.toString());
        // a cut capture is judged on what it holds and says it was cut: never a pass of 8 ports it does not show
        assertEquals(0, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.out().contains("UNKNOWN ib: the capture is cut short: ports it does not show are not known to be up"), bad.out());
        assertTrue(bad.out().contains("line 4: port mlx5_0/1 has no Physical state, Rate"), bad.out());
        assertTrue(bad.out().contains("replay: UNKNOWN"), bad.out());
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
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--ibstat", "/dev/zero"),
                "/dev/zero is more than 4194304 bytes; a capture may be at most 4194304 bytes (4 MiB)");
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

        Path ib = dir.resolve("ibstat.txt");
        Files.write(ib, new byte[] {'C', 'A', ' ', '\'', 'm', 'l', 'x', '5', '_', '0', '\'', '\n', 0x7f, 0x45, 0x4c, 0x46, 0x01});
        assertRefused(NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(), "--ibstat", ib.toString()),
                ib + " is not text (binary data at byte 16)");
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
