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
    void aMissingFileOrOneThatIsNotRegularIsAnErrorNamingIt() throws IOException {
        NoSuchFileException missing = assertThrows(NoSuchFileException.class, () -> readNew(dir.resolve("nope.log")));
        assertEquals("cannot read " + dir.resolve("nope.log") + ": no such file", missing.getReason());
        IOException notFile = assertThrows(IOException.class, () -> readNew(dir));
        assertEquals("cannot read " + dir + ": not a regular file", notFile.getMessage());
    }
}
