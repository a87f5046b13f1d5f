package dev.nhc.checks.gpu.fabric;

import dev.nhc.engine.state.StateSection;
import dev.nhc.probe.ProbeState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fabric manager log's new lines between runs, on real files in a temp directory. */
class FabricManagerLogReaderTest {
    @TempDir
    Path dir;

    private final ProbeState state = StateSection.detached("fabric");

    private FabricManagerLogReader reader(Path file, long maxLines) {
        return new FabricManagerLogReader(file, state, maxLines, Clock.systemUTC(), Instant.now().plusSeconds(30));
    }

    private List<String> readNew(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        reader(file, 1000).readNew(lines::add);
        return lines;
    }

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void eachRunReadsOnlyTheLinesWrittenSinceTheLastOne() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\ntwo\n");
        assertEquals(List.of("one", "two"), readNew(log));
        assertEquals(List.of(), readNew(log));
        append(log, "three\n");
        assertEquals(List.of("three"), readNew(log));
    }

    @Test
    void aLineStillBeingWrittenWaitsForItsNewline() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\ntw");
        assertEquals(List.of("one"), readNew(log));
        append(log, "o\n");
        assertEquals(List.of("two"), readNew(log));
    }

    @Test
    void aCaptureIsReadWholeLastLineIncludedAndTheStateIsNotTouched() throws IOException {
        Path log = dir.resolve("capture.log");
        append(log, "one\r\ntwo");
        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = reader(log, 1000).readWhole(lines::add);
        assertEquals(List.of("one", "two"), lines);
        assertEquals(2, s.linesRead());
        assertTrue(state.snapshot().isEmpty());
    }

    @Test
    void aRotatedOrReplacedFileIsReadFromItsStart() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "old one\nold two\n");
        readNew(log);
        Files.move(log, dir.resolve("fabricmanager.log.1"));
        append(log, "new\n");
        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = reader(log, 1000).readNew(lines::add);
        assertEquals(List.of("new"), lines);
        assertTrue(s.restarted());
    }

    @Test
    void aTruncatedFileIsReadFromItsStart() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "a long first line that will go\nsecond\n");
        readNew(log);
        Files.writeString(log, "short\n");
        assertEquals(List.of("short"), readNew(log));
    }

    @Test
    void aFileRewrittenInPlaceToTheSameLengthIsReadFromItsStart() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "first run line\n");
        readNew(log);
        Files.writeString(log, "other text line\nand another\n");    // same inode, longer than the old offset
        assertEquals(List.of("other text line", "and another"), readNew(log));
    }

    @Test
    void aCursorValueThatIsNotWhatTheReaderWritesStartsOverInsteadOfTrustingIt() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\ntwo\n");
        readNew(log);
        state.put(FabricManagerLogReader.OFFSET, "4");            // a hand edit: text, not a number
        assertEquals(List.of("one", "two"), readNew(log));
        state.put(FabricManagerLogReader.OFFSET, -3L);
        assertEquals(List.of("one", "two"), readNew(log));
        state.put(FabricManagerLogReader.HEAD_LEN, 100_000L);
        assertEquals(List.of("one", "two"), readNew(log));
        state.put(FabricManagerLogReader.HEAD_CRC, 1.5);
        assertEquals(List.of("one", "two"), readNew(log));
        assertEquals(List.of(), readNew(log), "the cursor written after each restart holds");
    }

    @Test
    void theLineBoundLeavesTheRestForTheNextRunAndSkipsNothing() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "1\n2\n3\n4\n5\n");
        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats first = reader(log, 2).readNew(lines::add);
        assertTrue(first.behind());
        assertEquals(2, first.linesRead());
        FabricManagerLogReader.Stats second = reader(log, 2).readNew(lines::add);
        FabricManagerLogReader.Stats third = reader(log, 2).readNew(lines::add);
        assertFalse(third.behind());
        assertTrue(second.behind());
        assertEquals(List.of("1", "2", "3", "4", "5"), lines);
    }

    @Test
    void theDeadlineLeavesTheRestForTheNextRun() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "1\n2\n");
        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = new FabricManagerLogReader(log, state, 1000, Clock.systemUTC(), Instant.now().minusSeconds(1))
                .readNew(lines::add);
        assertTrue(s.behind());
        assertEquals(List.of(), lines);
        assertEquals(List.of("1", "2"), readNew(log));
    }

    @Test
    void nulPaddingIsDroppedAndAnOverlongLineIsCutButStillEndsAtItsNewline() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "a\0\0b\n" + "x".repeat(FabricManagerLogReader.MAX_LINE_BYTES + 10) + "\nafter\n");
        List<String> lines = readNew(log);
        assertEquals("ab", lines.get(0));
        assertEquals(FabricManagerLogReader.MAX_LINE_BYTES + 1, lines.get(1).length(), "cut, with a mark");
        assertTrue(lines.get(1).endsWith("…"));
        assertEquals("after", lines.get(2));
    }

    @Test
    void linesWrittenJustBeforeRotationAreReadFromTheRotatedFileThenTheNewFileFromItsStart() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\n");
        assertEquals(List.of("one"), readNew(log));
        append(log, "two, written before the rotation\n");
        Files.move(log, dir.resolve("fabricmanager.log.1"));
        append(log, "three, in the new file\n");
        append(dir.resolve("fabricmanager.log.2"), "an older rotation, not read\n");

        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = reader(log, 1000).readNew(lines::add);
        assertEquals(List.of("two, written before the rotation", "three, in the new file"), lines);
        assertTrue(s.restarted(), "the new file is read from its start");
        assertEquals(List.of(), readNew(log));
    }

    @Test
    void aRunThatStopsInTheRotatedFileGoesOnThereNextRun() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "0\n");
        readNew(log);
        append(log, "1\n2\n3\n");
        Files.move(log, dir.resolve("fabricmanager.log.1"));
        append(log, "4\n");

        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats first = reader(log, 2).readNew(lines::add);
        assertTrue(first.behind());
        assertFalse(first.restarted());
        assertEquals(List.of("1", "2"), lines);
        FabricManagerLogReader.Stats second = reader(log, 2).readNew(lines::add);
        assertFalse(second.behind());
        assertEquals(List.of("1", "2", "3", "4"), lines);
    }

    @Test
    void aRotatedNameThatIsALinkIsNotFollowed() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\n");
        readNew(log);
        append(log, "two\n");
        Path moved = dir.resolve("elsewhere.log");
        Files.move(log, moved);
        Files.createSymbolicLink(dir.resolve("fabricmanager.log.1"), moved);
        append(log, "new\n");
        assertEquals(List.of("new"), readNew(log));
    }

    /** nhc 0.1 kept Java's file key ("(dev=803,ino=1234)") in fmlog.file, the offset and a checksum of the first bytes. */
    @Test
    void theCursorOfAnOlderNhcIsTakenOverOnceAndReplaced() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\ntwo\n");
        Map<String, Object> id = Files.readAttributes(log, "unix:dev,ino");
        byte[] bytes = Files.readAllBytes(log);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        state.put("fmlog.file", "(dev=" + Long.toHexString(((Number) id.get("dev")).longValue()) + ",ino=" + id.get("ino") + ")");
        state.put("fmlog.offset", 4L);
        state.put("fmlog.head_len", (long) bytes.length);
        state.put("fmlog.head_crc", crc.getValue());

        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = reader(log, 1000).readNew(lines::add);
        assertEquals(List.of("two"), lines, "went on from the old offset");
        assertFalse(s.restarted());
        assertEquals(List.of(), s.warnings());
        assertEquals(null, state.get("fmlog.file"));
        assertEquals(((Number) id.get("ino")).longValue(), state.getLong("fmlog.inode", -1));
        append(log, "three\n");
        assertEquals(List.of("three"), readNew(log));
    }

    @Test
    void anInvalidCursorValueIsSaidInTheWarnings() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "one\n");
        readNew(log);
        state.put(FabricManagerLogReader.OFFSET, "a lot");
        FabricManagerLogReader.Stats s = reader(log, 1000).readNew(line -> { });
        assertEquals(List.of("state value fmlog.offset = \"a lot\" is invalid (expected a whole number in 0..9223372036854775807); reset it"),
                s.warnings());
        assertTrue(s.restarted());
        assertEquals(List.of(), reader(log, 1000).readNew(line -> { }).warnings());
    }

    /** As in the kernel log: after a crash the file system left NUL blocks, and the fabric manager went on after them. */
    @Test
    void nulPaddingHoldsNothingUpAndTheLineAfterItIsRead() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "before the crash\n");
        appendBytes(log, (byte) 0, 5 << 20);
        append(log, "after the crash\n");
        assertEquals(List.of("before the crash", "after the crash"), readNew(log));
        assertEquals(Files.size(log), state.getLong("fmlog.offset", -1));

        appendBytes(log, (byte) 0, 5 << 20);    // padding at the end, no newline yet
        assertEquals(List.of(), readNew(log));
        append(log, "next\n");
        assertEquals(List.of("next"), readNew(log));
    }

    /** As in the kernel log: an endless line keeps its head, and even a run without time for it moves the cursor past it. */
    @Test
    void aLineLongerThanARunCanScanStillMovesTheCursor() throws IOException {
        Path log = dir.resolve("fabricmanager.log");
        append(log, "detected NVSwitch fatal error 24007 ");
        appendBytes(log, (byte) 'x', 8 << 20);
        List<String> lines = new ArrayList<>();
        FabricManagerLogReader.Stats s = new FabricManagerLogReader(log, state, 1000, Clock.systemUTC(), Instant.now().minusSeconds(1))
                .readNew(lines::add);
        assertTrue(s.behind());
        assertEquals(1, lines.size());
        assertTrue(lines.get(0).startsWith("detected NVSwitch fatal error 24007 xxx"));
        assertEquals(FabricManagerLogReader.MAX_LINE_BYTES + 1, lines.get(0).length(), "its head, with a mark");
        long offset = state.getLong("fmlog.offset", -1);
        assertTrue(offset > FabricManagerLogReader.MAX_LINE_BYTES, "moved to " + offset);

        append(log, "\nafter\n");
        assertEquals(List.of("x".repeat(FabricManagerLogReader.MAX_LINE_BYTES) + "…", "after"), readNew(log),
                "the rest of the endless line, then the next one");
    }

    private static void appendBytes(Path file, byte b, int count) throws IOException {
        byte[] block = new byte[1 << 20];
        java.util.Arrays.fill(block, b);
        try (var out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (int left = count; left > 0; left -= block.length) {
                out.write(block, 0, Math.min(left, block.length));
            }
        }
    }

    @Test
    void aMissingFileOrOneThatIsNotRegularIsAnErrorNamingIt() throws IOException {
        NoSuchFileException missing = assertThrows(NoSuchFileException.class, () -> readNew(dir.resolve("nope.log")));
        assertEquals("cannot read " + dir.resolve("nope.log") + ": no such file", missing.getReason());
        IOException notFile = assertThrows(IOException.class, () -> readNew(dir));
        assertEquals("cannot read " + dir + ": not a regular file", notFile.getMessage());
    }
}
