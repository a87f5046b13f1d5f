package dev.nhc.checks.kernel;

import dev.nhc.checks.Scripts;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class KernelLogReaderTest {
    @TempDir
    Path root;

    private TestProbeContext ctx(StateSection state) throws IOException {
        TestProbeContext c = new TestProbeContext(root).state(state);
        c.write("/proc/sys/kernel/random/boot_id", "boot-1\n");
        return c;
    }

    /** The lines a sink keeps: those of an earlier boot are forgotten when the reader says so. */
    private static List<KernelLogLine> read(KernelLogReader r, ReadStats[] stats) throws IOException {
        List<KernelLogLine> lines = new ArrayList<>();
        stats[0] = r.read(new KernelLogReader.Sink() {
            @Override
            public void line(KernelLogLine line) {
                lines.add(line);
            }

            @Override
            public void earlierBoot() {
                lines.clear();
            }
        });
        return lines;
    }

    @Test
    void fileIsReadOnceThenOnlyAppendedLines() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.000000] one\n[2.000000] two\n");
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("one", "two"), read(new KernelLogReader(c, "/var/log/kern.log"), st).stream().map(KernelLogLine::message).toList());
        assertEquals(2, st[0].linesRead());
        assertTrue(st[0].restarted());

        assertTrue(read(new KernelLogReader(c, "/var/log/kern.log"), st).isEmpty());
        assertEquals(0, st[0].linesRead());
        assertFalse(st[0].restarted());

        Files.writeString(log, "[3.000000] three\n", StandardOpenOption.APPEND);
        assertEquals(List.of("three"), read(new KernelLogReader(c, "/var/log/kern.log"), st).stream().map(KernelLogLine::message).toList());
    }

    @Test
    void truncatedOrReplacedFileIsReadFromTheStart() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] aaaaaaaaaaaaaaaaaaaa\n[2.0] bbbbbbbbbbbbbbbbbbbbbbbbbbbb\n");
        ReadStats[] st = new ReadStats[1];
        read(new KernelLogReader(c, "/var/log/kern.log"), st);

        Files.writeString(log, "[3.0] after truncation\n"); // shorter than the old offset
        List<KernelLogLine> l = read(new KernelLogReader(c, "/var/log/kern.log"), st);
        assertTrue(st[0].restarted());
        assertEquals(List.of("after truncation"), l.stream().map(KernelLogLine::message).toList());

        // Rotation: a new file (new inode) under the same name, longer than the old offset.
        Path tmp = root.resolve("new.log");
        Files.writeString(tmp, "[1.0] rotated one\n[2.0] rotated two, a longer line than before to pass the offset\n");
        Files.move(tmp, log, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        l = read(new KernelLogReader(c, "/var/log/kern.log"), st);
        assertTrue(st[0].restarted());
        assertEquals(2, l.size());
    }

    @Test
    void linesWithoutAHeaderAreCountedNotHandedOnExceptInAReplay() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/k.log", "[1.0] fine\n\u0000\u0001 garbled NVRM: Xid (PCI:0000:3b:00): 48, x\n\nno stamp at all\n");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "/k.log"), st);
        assertEquals(3, st[0].linesRead()); // the empty line is no line
        assertEquals(2, st[0].unparsedLines());
        assertEquals(List.of("fine"), l.stream().map(KernelLogLine::message).toList());

        // A replay reads under "/", its capture where it is.
        TestProbeContext replay = new TestProbeContext(Path.of("/")).state(StateSection.detached("u"))
                .service(KernelLogCapture.class, new KernelLogCapture(c.sys("/k.log")));
        l = read(new KernelLogReader(replay, "kmsg"), st);
        assertEquals(3, l.size(), "an admin's capture: lines of unknown origin are judged");
        assertEquals(0, st[0].unparsedLines());
    }

    /**
     * A file outlives boots: which lines are this boot's is told by the kernel's banner, never by
     * comparing stamps with btime (a clock NTP stepped forward made this boot's lines look older).
     */
    @Test
    void aFileReadWithoutACursorOfThisBootStartsThisBootAtTheKernelsBanner() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/proc/stat", "cpu  1 2 3\nbtime 1767225600\n"); // 2026-01-01T00:00:00Z, as computed after NTP stepped the clock
        c.write("/k.log", "Dec 30 23:00:00 n kernel: " + XID_79 + "\n"
                + "Dec 31 23:50:00 n kernel: Linux version 6.8.0-51-generic (buildd@lcy02-amd64-045) (gcc 13.2.0) #52-Ubuntu SMP\n"
                + "Dec 31 23:51:00 n kernel: " + XID_79.replace("79", "48") + "\n"); // this boot, stamped before btime
        ReadStats[] st = new ReadStats[1];
        List<String> got = messages(new KernelLogReader(c, "/k.log"), st);
        assertEquals(2, got.size(), got.toString());
        assertTrue(got.get(1).contains("): 48,"), got.toString());
        assertEquals(1, st[0].beforeBootLines());

        TestProbeContext old = ctx(StateSection.detached("u"));
        assertEquals(3, read(new KernelLogReader(old, "/k.log").sinceBoot(false), st).size());
    }

    @Test
    void linesAfterACursorOfThisBootAreThisBootsWhateverTheirStamps() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        c.write("/proc/stat", "btime 1767225600\n");
        Path log = c.write("/k.log", "Jan  1 00:10:00 n kernel: usb 1-1: new device\n");
        ReadStats[] st = new ReadStats[1];
        messages(new KernelLogReader(c, "/k.log"), st);
        Files.writeString(log, "Dec 31 22:00:00 n kernel: " + XID_79 + "\n", StandardOpenOption.APPEND); // a clock stepped back
        assertEquals(List.of(XID_79), messages(new KernelLogReader(c, "/k.log"), st));
        assertEquals(0, st[0].beforeBootLines());
    }

    /** After a reboot the file's cursor is kept: the old boot's last lines come first, then this boot's banner. */
    @Test
    void afterARebootTheOldBootsTailIsForgottenAtTheBanner() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/k.log", "[1.0] usb 1-1: new device\n");
        ReadStats[] st = new ReadStats[1];
        messages(new KernelLogReader(c, "/k.log"), st);
        Files.writeString(log, "[900.0] " + XID_79 + "\n[0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12)\n"
                + "[5.0] after the reboot\n", StandardOpenOption.APPEND);
        c.write("/proc/sys/kernel/random/boot_id", "boot-2\n");
        // read() forgets, as the probes do, what was handed before the banner
        assertEquals(List.of("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12)", "after the reboot"),
                messages(new KernelLogReader(c, "/k.log"), st));
        assertEquals(1, st[0].beforeBootLines());
    }

    /** Without a banner (rotated away, or the syslog daemon missed it) a line cannot be placed: it counts as this boot's. */
    @Test
    void aLineThatCannotBePlacedCountsAsThisBoots() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/proc/stat", "btime 1767225600\n");
        c.write("/k.log", "Dec 30 23:00:00 n kernel: " + XID_79 + "\n");
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of(XID_79), messages(new KernelLogReader(c, "/k.log"), st));
        assertEquals(0, st[0].beforeBootLines());
    }

    /** A program named like the banner segfaults: its record starts with its name, so it marks no boot. */
    @Test
    void aUserProgramNamedLikeTheBannerMarksNoBoot() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/k.log", "[5.0] " + XID_79 + "\n[6.0] Linux version 6[4242]: segfault at 0 ip 0000 sp 0000 error 4 in Linux version 6.1 (x)[1139,5585f7e16000+1000]\n");
        ReadStats[] st = new ReadStats[1];
        assertEquals(XID_79, messages(new KernelLogReader(c, "/k.log"), st).get(0));
        assertEquals(0, st[0].beforeBootLines());
    }

    @Test
    void perRunBoundCountsTheRestAsSkippedAndDoesNotReadThemAgain() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            b.append("[").append(i).append(".0] line ").append(i).append('\n');
        }
        c.write("/k.log", b.toString());
        ReadStats[] st = new ReadStats[1];
        assertEquals(4, read(new KernelLogReader(c, "/k.log").maxLines(4), st).size());
        assertEquals(4, st[0].linesRead());
        assertEquals(6, st[0].skippedLines());
        assertEquals(0, read(new KernelLogReader(c, "/k.log").maxLines(4), st).size());
        assertEquals(0, st[0].skippedLines());
    }

    @Test
    void aMillionLineFileIsScannedOnceAndTheNextRunReadsNothing() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s).budget(Duration.ofSeconds(60));
        Path log = c.sys("/var/log/big.log");
        Files.createDirectories(log.getParent());
        try (BufferedWriter w = Files.newBufferedWriter(log)) {
            for (int i = 0; i < 1_000_000; i++) {
                w.write("[" + (i / 1000) + "." + String.format("%06d", i % 1000) + "] usb 1-1: noise line " + i + "\n");
            }
        }
        ReadStats[] st = new ReadStats[1];
        long[] handed = {0};
        st[0] = new KernelLogReader(c, "/var/log/big.log").read(l -> handed[0]++);
        assertEquals(1_000_000, st[0].linesRead());
        assertEquals(1_000_000, handed[0]);
        assertEquals(0, st[0].skippedLines());
        assertEquals(Files.size(log), s.getLong("log.offset", -1));

        handed[0] = 0;
        st[0] = new KernelLogReader(c, "/var/log/big.log").read(l -> handed[0]++);
        assertEquals(0, st[0].linesRead());
        assertEquals(0, handed[0]);
    }

    @Test
    void kmsgRecordsBySequenceNumberWithBootIdReset() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        c.write("/proc/stat", "btime 1767225600\n");
        Path kmsg = c.write("/dev/kmsg", "6,1,1000000,-;first\n SUBSYSTEM=pci\n 14,2,2000000,-;not this\n"
                .replace("\n 14", "\n14") + "4,3,3000000,-;third\n");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "kmsg"), st);
        assertEquals(List.of("first", "third"), l.stream().map(KernelLogLine::message).toList()); // facility 1 (user) is not kernel
        assertEquals(1, st[0].otherLines());
        assertEquals(java.time.Instant.parse("2026-01-01T00:00:03Z"), l.get(1).time());
        assertEquals(3, s.getLong("log.seq", -1));

        assertTrue(read(new KernelLogReader(c, "kmsg"), st).isEmpty());

        Files.writeString(kmsg, "6,7,7000000,-;after a gap\n", StandardOpenOption.APPEND);
        l = read(new KernelLogReader(c, "kmsg"), st);
        assertEquals(List.of("after a gap"), l.stream().map(KernelLogLine::message).toList());
        assertEquals(3, st[0].lostRecords());

        c.write("/proc/sys/kernel/random/boot_id", "boot-2\n");
        Files.writeString(kmsg, "6,0,100,-;new boot\n");
        l = read(new KernelLogReader(c, "kmsg"), st);
        assertTrue(st[0].bootChanged());
        assertEquals(List.of("new boot"), l.stream().map(KernelLogLine::message).toList());
    }

    @Test
    void malformedKmsgRecordsAreCounted() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/dev/kmsg", "6,1,10,-;ok\nthis is no record\n6,x,10,-;bad seq\n");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "kmsg"), st);
        assertEquals(List.of("ok"), l.stream().map(KernelLogLine::message).toList());
        assertEquals(2, st[0].unparsedLines());
    }

    @Test
    void journalUsesTheCursorAfterTheFirstRun(@TempDir Path bin) throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path args = bin.resolve("args");
        Path fake = Scripts.write(bin, "journalctl",
                "echo \"$@\" >> " + args + "\n"
                        + "case \"$*\" in *--after-cursor=s=abc*) echo '-- No entries --'; echo '-- cursor: s=abc';;\n"
                        + "*) echo '" + entry("kernel", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x") + "'\n"
                        + "   echo 'not an entry'\n"
                        + "   echo '-- cursor: s=abc';; esac");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st);
        assertEquals(List.of("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x"), l.stream().map(KernelLogLine::message).toList());
        assertEquals(512.0, l.get(0).uptimeSeconds(), 1e-9);
        assertEquals(1, st[0].unparsedLines());
        assertEquals("s=abc", s.getString("log.cursor"));
        assertTrue(read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st).isEmpty());
        List<String> calls = Files.readAllLines(args);
        assertEquals("-k -o json --output-fields=MESSAGE,_TRANSPORT,_BOOT_ID --all --no-pager --show-cursor -q", calls.get(0));
        assertTrue(calls.get(1).endsWith("--after-cursor=s=abc"), calls.get(1));
    }

    @Test
    void missingSourcesSayWhat(@TempDir Path bin) throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        IOException e = assertThrows(IOException.class, () -> new KernelLogReader(c, "/var/log/nope.log").read(l -> { }));
        assertTrue(e.getMessage().contains("nope.log") && e.getMessage().contains("no such file"), e.getMessage());
        e = assertThrows(IOException.class, () -> new KernelLogReader(c, "kmsg").read(l -> { }));
        assertTrue(e.getMessage().contains("/dev/kmsg"), e.getMessage());
        Path failing = Scripts.write(bin, "journalctl", "echo 'No journal files were found.' >&2; exit 1");
        e = assertThrows(IOException.class, () -> new KernelLogReader(c, "journal").journalctl(failing.toString()).read(l -> { }));
        assertTrue(e.getMessage().contains("No journal files were found."), e.getMessage());
    }

    @Test
    void atTheDeadlineTheReaderStopsAndTheNextRunContinues() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        c.write("/k.log", "[1.0] a\n[2.0] b\n");
        ReadStats[] st = new ReadStats[1];
        assertTrue(read(new KernelLogReader(c.budget(Duration.ZERO), "/k.log"), st).isEmpty());
        assertTrue(st[0].incomplete());
        assertEquals(2, read(new KernelLogReader(c.budget(Duration.ofSeconds(10)), "/k.log"), st).size());
        assertFalse(st[0].incomplete());
    }

    @Test
    void aHangingJournalctlIsKilledAndTheCursorKept(@TempDir Path bin) throws IOException {
        StateSection s = StateSection.detached("t");
        s.put("log.source", "journal");
        s.put("log.boot_id", "boot-1");
        s.put("log.cursor", "s=old");
        TestProbeContext c = ctx(s).budget(Duration.ofSeconds(1));
        Path fake = Scripts.write(bin, "journalctl", "echo '" + entry("kernel", "partial") + "'; sleep 60");
        ReadStats[] st = new ReadStats[1];
        long t0 = System.nanoTime();
        read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st);
        assertTrue(st[0].incomplete());
        assertEquals("s=old", s.getString("log.cursor"));
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(1 + 3)) < 0);
    }

    /** One line of journalctl -o json as systemd 252 prints it (field order as it has it). */
    static String entry(String transport, String message) {
        return "{\"__CURSOR\":\"s=6d1f;i=5a2;b=9a4f;m=2e8a;t=6428;x=11\",\"__REALTIME_TIMESTAMP\":\"1763784356123456\","
                + "\"__MONOTONIC_TIMESTAMP\":\"512000000\",\"_BOOT_ID\":\"9a4f0c2be1d84c6f9b1e0d3c2a1b0f9e\","
                + "\"_TRANSPORT\":\"" + transport + "\",\"MESSAGE\":\"" + message + "\"}";
    }

    private static List<String> messages(KernelLogReader r, ReadStats[] st) throws IOException {
        return read(r, st).stream().map(KernelLogLine::message).toList();
    }

    private static final String XID_79 = "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.";

    // ---- issue 13 item 5: values read back from state ----

    /** A head length of 300000000 made every run allocate 300 MB and fail ("Java heap space"), missing the next XID. */
    @Test
    void anOutOfRangeHeadLengthInStateIsResetAndNewLinesAreStillRead() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n[2.0] two\n");
        ReadStats[] st = new ReadStats[1];
        read(new KernelLogReader(c, "/var/log/kern.log"), st);

        s.put("log.head_len", 300_000_000L);
        Files.writeString(log, "[3.0] " + XID_79 + "\n", StandardOpenOption.APPEND);
        assertEquals(List.of(XID_79), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        assertTrue(s.getLong("log.head_len", -1) <= 256, "head length kept: " + s.getLong("log.head_len", -1));
        assertEquals(List.of("state value log.head_len = 300000000 is invalid (expected a whole number in 0..256); reset it"),
                st[0].warnings());
        assertEquals(List.of(), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        assertEquals(List.of(), st[0].warnings());
    }

    /** Every value the reader keeps, broken in the ways state gets broken: each is reset with a warning naming it, and reading goes on. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "log.offset    | -5",
            "log.offset    | 'a lot'",
            "log.offset    | 1.5",
            "log.inode     | -1",
            "log.device    | true",
            "log.size      | -7",
            "log.head_crc  | 99999999999",
            "log.tail_len  | 100000",
            "log.tail_crc  | -3",
            "log.source    | 42",
            "log.boot_id   | 'boot 1 with spaces'"})
    void everyInvalidFileCursorValueIsResetWithAWarningAndTheNewLinesAreRead(String key, String raw) throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n");
        ReadStats[] st = new ReadStats[1];
        read(new KernelLogReader(c, "/var/log/kern.log"), st);
        Files.writeString(log, "[2.0] " + XID_79 + "\n", StandardOpenOption.APPEND);

        s.put(key, parse(raw));
        List<String> got = messages(new KernelLogReader(c, "/var/log/kern.log"), st);

        assertTrue(got.contains(XID_79), key + " = " + raw + ": " + got);
        assertEquals(1, st[0].warnings().size(), st[0].warnings().toString());
        assertTrue(st[0].warnings().get(0).startsWith("state value " + key + " = "), st[0].warnings().get(0));
        assertTrue(st[0].warnings().get(0).endsWith("; reset it"), st[0].warnings().get(0));
        assertEquals(List.of(), messages(new KernelLogReader(c, "/var/log/kern.log"), st), "the cursor is whole again");
        assertEquals(List.of(), st[0].warnings());
    }

    private static Object parse(String raw) {
        if (raw.equals("true")) {
            return Boolean.TRUE;
        }
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            try {
                return Double.parseDouble(raw);
            } catch (NumberFormatException e2) {
                return raw;
            }
        }
    }

    @Test
    void aJournalCursorWithAControlCharacterIsNeverHandedToJournalctl(@TempDir Path bin) throws IOException {
        StateSection s = StateSection.detached("t");
        s.put("log.source", "journal");
        s.put("log.boot_id", "boot-1");
        s.put("log.cursor", "s=abc\n--output=json");
        TestProbeContext c = ctx(s);
        Path args = bin.resolve("args");
        Path fake = Scripts.write(bin, "journalctl", "echo \"$@\" >> " + args + "\necho '" + entry("kernel", "line") + "'; echo '-- cursor: s=new'");
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("line"), messages(new KernelLogReader(c, "journal").journalctl(fake.toString()), st));
        assertFalse(Files.readString(args).contains("after-cursor"), Files.readString(args));
        assertEquals(1, st[0].warnings().size());
        assertTrue(st[0].warnings().get(0).contains("log.cursor = \"s=abc?--output=json\""), st[0].warnings().get(0));
        assertEquals("s=new", s.getString("log.cursor"));
    }

    @Test
    void aJournalCursorJournalctlRefusesIsDroppedAndTheJournalReadWithoutIt(@TempDir Path bin) throws IOException {
        StateSection s = StateSection.detached("t");
        s.put("log.source", "journal");
        s.put("log.boot_id", "boot-1");
        s.put("log.cursor", "s=gone;i=1");
        TestProbeContext c = ctx(s);
        Path fake = Scripts.write(bin, "journalctl", "case \"$*\" in *--after-cursor=*) echo 'Failed to seek to cursor: Invalid argument' >&2; exit 1;;\n"
                + "*) echo '" + entry("kernel", "line") + "'; echo '-- cursor: s=new';; esac");
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("line"), messages(new KernelLogReader(c, "journal").journalctl(fake.toString()), st));
        assertEquals(List.of("state value log.cursor was refused by journalctl (Failed to seek to cursor: Invalid argument); reset it"),
                st[0].warnings());
        assertEquals("s=new", s.getString("log.cursor"));
    }

    /** A kmsg sequence number from the future (hand edit, another machine's state) skipped every record forever. */
    @Test
    void aKmsgSequenceNumberPastTheNewestRecordIsResetAndTheRecordsAreRead() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        c.write("/dev/kmsg", "6,1,1000000,-;first\n4,2,2000000,-;" + XID_79 + "\n");
        s.put("log.source", "kmsg");
        s.put("log.boot_id", "boot-1");
        s.put("log.seq", 9_000_000_000L);
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("first", XID_79), messages(new KernelLogReader(c, "kmsg"), st));
        assertEquals(2, s.getLong("log.seq", -1));
        assertEquals(List.of("state value log.seq = 9000000000 is past the newest kernel record (2); reset it"), st[0].warnings());

        s.put("log.seq", -4L);
        assertEquals(List.of("first", XID_79), messages(new KernelLogReader(c, "kmsg"), st));
        assertEquals(List.of("state value log.seq = -4 is invalid (expected a whole number in 0..9223372036854775807); reset it"),
                st[0].warnings());
    }

    // ---- issue 13 item 6: one endless line ----

    /** Writes {@code n} copies of {@code b} without holding them in memory. */
    private static void append(Path p, byte b, long n) throws IOException {
        byte[] block = new byte[1 << 20];
        java.util.Arrays.fill(block, b);
        try (var out = Files.newOutputStream(p, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (long left = n; left > 0; left -= block.length) {
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }

    @Test
    void aLineOfMoreThan64MiBKeepsItsHeadAndTheCursorMovesPastIt() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s).budget(Duration.ofSeconds(60));
        Path log = c.write("/var/log/kern.log", "[1.0] before\n[2.0] " + XID_79 + " ");
        append(log, (byte) 'x', 65L << 20);
        Files.writeString(log, "\n[3.0] after\n", StandardOpenOption.APPEND);

        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> lines = read(new KernelLogReader(c, "/var/log/kern.log"), st);
        assertEquals(3, lines.size());
        assertTrue(lines.get(1).message().startsWith(XID_79), lines.get(1).message().substring(0, 100));
        assertTrue(lines.get(1).message().length() <= 64 * 1024, "kept " + lines.get(1).message().length() + " characters");
        assertEquals("after", lines.get(2).message());
        assertEquals(Files.size(log), s.getLong("log.offset", -1));
        assertEquals(1, st[0].truncatedLines());
        assertEquals(3, st[0].linesRead());
    }

    /** The replay path and a run without enough time: a line longer than one run can scan still moves the cursor. */
    @Test
    void aLineLongerThanARunCanScanStillMovesTheCursor() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] " + XID_79 + " ");
        append(log, (byte) 'x', 8L << 20);
        ReadStats[] st = new ReadStats[1];
        List<String> got = messages(new KernelLogReader(c.budget(Duration.ZERO), "/var/log/kern.log"), st);
        assertTrue(st[0].incomplete());
        assertEquals(1, got.size());
        assertTrue(got.get(0).startsWith(XID_79));
        long offset = s.getLong("log.offset", -1);
        assertTrue(offset > 64 * 1024, "moved to " + offset);
        messages(new KernelLogReader(c.budget(Duration.ofSeconds(30)), "/var/log/kern.log"), st);
        assertEquals(Files.size(log), s.getLong("log.offset", -1));
    }

    /** After a crash the file system left NUL blocks; the logger went on after them, so the next line starts with 64 MiB of NULs. */
    @Test
    void nulPaddingHoldsNothingUpAndTheLineAfterItIsRead() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s).budget(Duration.ofSeconds(60));
        Path log = c.write("/var/log/kern.log", "[1.0] before the crash\n");
        append(log, (byte) 0, 65L << 20);
        Files.writeString(log, "[2.0] " + XID_79 + "\n", StandardOpenOption.APPEND);

        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("before the crash", XID_79), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        assertEquals(Files.size(log), s.getLong("log.offset", -1));

        append(log, (byte) 0, 65L << 20); // padding at the end, no newline yet
        assertEquals(List.of(), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        Files.writeString(log, "[3.0] next\n", StandardOpenOption.APPEND);
        assertEquals(List.of("next"), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
    }

    // ---- issue 13 item 7: rotation and rewrites ----

    @Test
    void aLineAppendedJustBeforeRotationIsReadFromTheRotatedFileThenTheNewFileFromItsStart() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n");
        ReadStats[] st = new ReadStats[1];
        assertEquals(List.of("one"), messages(new KernelLogReader(c, "/var/log/kern.log"), st));

        Files.writeString(log, "[2.0] " + XID_79 + "\n", StandardOpenOption.APPEND);
        Files.move(log, log.resolveSibling("kern.log.1"));
        c.write("/var/log/kern.log", "[3.0] in the new file\n");
        c.write("/var/log/kern.log.2", "[0.5] an older rotation, not read\n");

        assertEquals(List.of(XID_79, "in the new file"), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        assertTrue(st[0].restarted());
        assertEquals(List.of(), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
    }

    @Test
    void aRotatedNameThatIsALinkToTheOldInodeIsNotFollowed() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n");
        ReadStats[] st = new ReadStats[1];
        messages(new KernelLogReader(c, "/var/log/kern.log"), st);

        Files.writeString(log, "[2.0] appended\n", StandardOpenOption.APPEND);
        Path elsewhere = root.resolve("elsewhere.log");
        Files.move(log, elsewhere);
        Files.createSymbolicLink(log.resolveSibling("kern.log.1"), elsewhere);
        c.write("/var/log/kern.log", "[3.0] new\n");
        assertEquals(List.of("new"), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
    }

    @Test
    void aRotatedFileIsFollowedAcrossRunsWhenTheDeadlineCutsItShort() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n");
        ReadStats[] st = new ReadStats[1];
        messages(new KernelLogReader(c, "/var/log/kern.log"), st);
        Files.writeString(log, "[2.0] " + XID_79 + "\n", StandardOpenOption.APPEND);
        Files.move(log, log.resolveSibling("kern.log.1"));
        c.write("/var/log/kern.log", "[3.0] new\n");

        assertEquals(List.of(), messages(new KernelLogReader(c.budget(Duration.ZERO), "/var/log/kern.log"), st));
        assertTrue(st[0].incomplete());
        assertEquals(List.of(XID_79, "new"), messages(new KernelLogReader(c.budget(Duration.ofSeconds(10)), "/var/log/kern.log"), st));
    }

    @Test
    void theCursorOfAnEarlierNhcIsTakenOverWithoutReadingTheFileAgain() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        Path log = c.write("/var/log/kern.log", "[1.0] one\n");
        ReadStats[] st = new ReadStats[1];
        messages(new KernelLogReader(c, "/var/log/kern.log"), st);
        // What nhc 0.1 kept: the JDK's file key text, offset and head checksum.
        long dev = s.getLong("log.device", -1);
        long ino = s.getLong("log.inode", -1);
        for (String k : List.of("log.device", "log.inode", "log.size", "log.tail_len", "log.tail_crc")) {
            s.remove(k);
        }
        s.put("log.file_key", "(dev=" + Long.toHexString(dev) + ",ino=" + ino + ")");
        Files.writeString(log, "[2.0] two\n", StandardOpenOption.APPEND);
        assertEquals(List.of("two"), messages(new KernelLogReader(c, "/var/log/kern.log"), st));
        assertEquals(List.of(), st[0].warnings());
        assertEquals(null, s.get("log.file_key"));
        assertEquals(ino, s.getLong("log.inode", -1));
    }

    @Test
    void anInPlaceRewriteWithTheSameHeadIsReadFromTheStartNotSkipped() throws IOException {
        StateSection s = StateSection.detached("t");
        TestProbeContext c = ctx(s);
        String head = "[0.0] " + "h".repeat(300) + "\n"; // the first 256 bytes stay the same
        Path log = c.write("/var/log/kern.log", head + "[1.0] old line one\n[2.0] old line two\n");
        ReadStats[] st = new ReadStats[1];
        read(new KernelLogReader(c, "/var/log/kern.log"), st);

        // Same inode, same head, longer than before: only the content before the old offset differs.
        Files.writeString(log, head + "[1.0] " + XID_79 + "\n[2.0] new line two, a little longer than before\n");
        List<String> got = messages(new KernelLogReader(c, "/var/log/kern.log"), st);
        assertTrue(got.contains(XID_79), got.toString());
        assertTrue(st[0].restarted());
    }

    /** The real device of this machine: read to its end without blocking, then only what is new. */
    @Test
    void realDevKmsgIsReadWithoutBlocking() throws IOException {
        Path dev = Path.of("/dev/kmsg");
        assumeTrue(Files.isReadable(dev), "/dev/kmsg is not readable here (needs root or CAP_SYSLOG)");
        StateSection s = StateSection.detached("t");
        TestProbeContext c = new TestProbeContext(Path.of("/")).state(s).budget(Duration.ofSeconds(5));
        long started = System.nanoTime();
        ReadStats first = new KernelLogReader(c, "kmsg").read(l -> { });
        assertTrue(first.linesRead() > 0, "the boot messages are in the ring buffer");
        assertFalse(first.incomplete(), "reached the end of the buffer before the deadline");
        long seq = s.getLong("log.seq", -1);
        assertTrue(seq > 0);
        ReadStats second = new KernelLogReader(c, "kmsg").read(l -> { });
        assertTrue(second.linesRead() < first.linesRead());
        assertTrue(s.getLong("log.seq", -1) >= seq);
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(8)) < 0, "returned at the end of the buffer");
    }
}
