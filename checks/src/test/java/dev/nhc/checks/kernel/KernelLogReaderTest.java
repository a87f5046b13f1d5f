package dev.nhc.checks.kernel;

import dev.nhc.checks.Scripts;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    private static List<KernelLogLine> read(KernelLogReader r, ReadStats[] stats) throws IOException {
        List<KernelLogLine> lines = new ArrayList<>();
        stats[0] = r.read(lines::add);
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
    void garbledLinesAreCountedAndStillHandedOn() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/k.log", "[1.0] fine\n\u0000\u0001 garbled NVRM: Xid (PCI:0000:3b:00): 48, x\n\nno stamp at all\n");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "/k.log"), st);
        assertEquals(3, st[0].linesRead()); // the empty line is no line
        assertEquals(2, st[0].unparsedLines());
        assertEquals(3, l.size());
        assertFalse(l.get(1).timestampParsed());
    }

    @Test
    void linesBeforeThisBootAreCountedNotHandedOnUnlessAskedFor() throws IOException {
        TestProbeContext c = ctx(StateSection.detached("t"));
        c.write("/proc/stat", "cpu  1 2 3\nbtime 1767225600\n"); // 2026-01-01T00:00:00Z
        c.write("/k.log", "2025-12-31T23:00:00.000000+00:00 old boot\n2026-01-01T00:10:00.000000+00:00 this boot\n[5.0] no date\n");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "/k.log"), st);
        assertEquals(List.of("this boot", "no date"), l.stream().map(KernelLogLine::message).toList());
        assertEquals(1, st[0].beforeBootLines());

        TestProbeContext replay = ctx(StateSection.detached("u"));
        assertEquals(3, read(new KernelLogReader(replay, "/k.log").sinceBoot(false), st).size());
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
        assertEquals(3, l.size());
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
                        + "*) echo '2026-11-22T04:05:56.123456+0000 node kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x'\n"
                        + "   echo 'not a stamped line'\n"
                        + "   echo '-- cursor: s=abc';; esac");
        ReadStats[] st = new ReadStats[1];
        List<KernelLogLine> l = read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st);
        assertEquals(2, l.size());
        assertEquals(1, st[0].unparsedLines());
        assertEquals("s=abc", s.getString("log.cursor"));
        assertTrue(read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st).isEmpty());
        List<String> calls = Files.readAllLines(args);
        assertEquals("-k -o short-iso-precise --no-pager --show-cursor -q", calls.get(0));
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
        Path fake = Scripts.write(bin, "journalctl", "echo '[1.0] partial'; sleep 60");
        ReadStats[] st = new ReadStats[1];
        long t0 = System.nanoTime();
        read(new KernelLogReader(c, "journal").journalctl(fake.toString()), st);
        assertTrue(st[0].incomplete());
        assertEquals("s=old", s.getString("log.cursor"));
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(1 + 3)) < 0);
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
