package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.logfile.GrowingLogFile;
import dev.nhc.checks.logfile.LineScanner;
import dev.nhc.checks.logfile.LogFile;
import dev.nhc.checks.logfile.LogFileCursor;
import dev.nhc.checks.logfile.StateValues;
import dev.nhc.probe.ProbeState;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the lines of the fabric manager log that are new since the last run, the way the kernel
 * log reader reads a log file ({@link GrowingLogFile}): a file renamed by rotation is found again
 * by its inode and read to its end before the new file; a replaced, truncated or rewritten file is
 * read from its start. Lines are bounded ({@link LineScanner}): an overlong line keeps its first
 * 64 KiB and is marked "…", NUL padding is dropped.
 *
 * <p>The cursor is kept in the check's state under {@code fmlog.} ({@link LogFileCursor}); nhc 0.1's
 * {@code fmlog.file} is read once and replaced. Every value read back is checked; one that is not
 * what this reader writes (a hand edit, a damaged disk) drops the whole cursor, said in
 * {@link Stats#warnings()}, and the file is read from its start rather than from an offset that
 * may belong to another file.
 *
 * <p>A last line without its newline is left for the next run (the fabric manager may be writing
 * it), except when reading a capture whole. The work per run is bounded by a line count and the
 * check's deadline; what is left is read next run, so no line is ever skipped unread.
 */
final class FabricManagerLogReader {
    static final String KEY_PREFIX = "fmlog.";
    private static final LogFileCursor CURSOR = LogFileCursor.under(KEY_PREFIX, KEY_PREFIX + "file").allOrNothing();
    static final String OFFSET = CURSOR.key(LogFileCursor.OFFSET);
    static final String HEAD_LEN = CURSOR.key(LogFileCursor.HEAD_LEN);
    static final String HEAD_CRC = CURSOR.key(LogFileCursor.HEAD_CRC);
    /** Longer lines are cut here (the rest of the line is still skipped to its newline). */
    static final int MAX_LINE_BYTES = LineScanner.MAX_LINE_BYTES;
    /** How many lines go by between two looks at the clock. */
    private static final int CLOCK_EVERY = 1024;

    /**
     * @param linesRead lines handed on this run
     * @param behind    stopped at the line bound or the deadline: the rest is read next run
     * @param restarted read from the file's start (first run, another file, or a cursor that did not hold)
     * @param warnings  what was wrong with the cursor in the state (it was dropped), one sentence each
     */
    record Stats(long linesRead, boolean behind, boolean restarted, List<String> warnings) {
        Stats {
            warnings = List.copyOf(warnings);
        }
    }

    private final Path file;
    private final ProbeState state;
    private final long maxLines;
    private final Clock clock;
    private final Instant stopAt;

    FabricManagerLogReader(Path file, ProbeState state, long maxLines, Clock clock, Instant stopAt) {
        this.file = file;
        this.state = state;
        this.maxLines = maxLines;
        this.clock = clock;
        this.stopAt = stopAt;
    }

    /** The new lines, in order, to {@code sink}; the cursor moves past them. */
    Stats readNew(Consumer<String> sink) throws IOException {
        StateValues values = new StateValues(state);
        LogFile.Position was = CURSOR.load(values);
        BoundedLines lines = new BoundedLines(sink, new LineScanner().leaveUnfinishedLine());
        GrowingLogFile.Read read = new GrowingLogFile(file, file.toString()).read(was, lines);
        CURSOR.save(state, read.position());
        return new Stats(lines.count, read.stopped(), read.restarted(), values.warnings());
    }

    /** Every line of the file, the last one even without its newline (a capture); the state is not touched. */
    Stats readWhole(Consumer<String> sink) throws IOException {
        BoundedLines lines = new BoundedLines(sink, new LineScanner());
        new GrowingLogFile(file, file.toString()).readAll(lines);
        return new Stats(lines.count, lines.behind, true, List.of());
    }

    /** Decodes the scanned lines for the sink, up to {@link #maxLines} and the deadline. */
    private final class BoundedLines implements GrowingLogFile.Lines, LineScanner.Sink {
        private final Consumer<String> sink;
        private final LineScanner scanner;
        long count;
        boolean behind;

        BoundedLines(Consumer<String> sink, LineScanner scanner) {
            this.sink = sink;
            this.scanner = scanner;
        }

        @Override
        public long scan(FileChannel ch, long offset) throws IOException {
            return scanner.scan(ch, offset, this);
        }

        @Override
        public boolean stopped() {
            return behind;
        }

        @Override
        public boolean more() {
            if (count >= maxLines || (count % CLOCK_EVERY == 0 && clock.instant().isAfter(stopAt))) {
                behind = true;
                return false;
            }
            return true;
        }

        @Override
        public boolean outOfTime() {
            if (clock.instant().isAfter(stopAt)) {
                behind = true;
                return true;
            }
            return false;
        }

        @Override
        public void line(long lineNo, byte[] bytes, int len, boolean truncated) {
            String text = new String(bytes, 0, len, StandardCharsets.UTF_8);
            sink.accept(truncated ? text + "…" : text);
            count++;
        }
    }
}
