package dev.nhc.checks.logfile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Splits a file into lines from a byte offset with bounded memory, whatever the file holds:
 * <ul>
 * <li>a line keeps its first {@link #MAX_LINE_BYTES} bytes (a timestamp and an XID are at its
 *     start); the rest is skipped and the line counted as truncated;</li>
 * <li>NUL bytes are dropped: a crash leaves blocks of them in a log file, and the logger goes on
 *     after them, so they would otherwise hide the line that follows and fill memory;</li>
 * <li>a trailing CR is dropped; empty lines are no lines;</li>
 * <li>a last line without its newline is taken as complete (kernel loggers write whole lines),
 *     or left for the next scan when the writer may still be writing it
 *     ({@link #leaveUnfinishedLine()}).</li>
 * </ul>
 * The returned offset is always past whole lines (or past a stretch of an endless line, see
 * {@link Sink#outOfTime()}), so a cursor kept from it always advances.
 */
public final class LineScanner {
    public static final int MAX_LINE_BYTES = 64 * 1024;
    private static final int BUFFER_BYTES = 256 * 1024;

    /** Where the lines go, and when to stop. */
    public interface Sink {
        /** Asked before each line: false stops the scan there, and the line is read next time. */
        boolean more();

        /**
         * Asked after each buffer in the middle of an overlong line: true hands on what was kept of
         * it and stops past the bytes scanned so far, so that even a line longer than one run can
         * scan moves the cursor.
         */
        boolean outOfTime();

        /** One line: {@code len} bytes of {@code bytes}; {@code truncated} when its tail was skipped. */
        void line(long lineNo, byte[] bytes, int len, boolean truncated);
    }

    private long truncated;
    private boolean takeUnfinished = true;

    /**
     * A last line without its newline is not handed on and the returned offset stays before it, so
     * that the next scan reads it whole once the writer has finished it.
     */
    public LineScanner leaveUnfinishedLine() {
        this.takeUnfinished = false;
        return this;
    }

    /** Lines longer than {@link #MAX_LINE_BYTES} seen by this scanner. */
    public long truncated() {
        return truncated;
    }

    /** Scans from {@code offset} to the end of the file, or until the sink stops it; returns the offset after the last line handed on. */
    public long scan(FileChannel ch, long offset, Sink sink) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES);
        byte[] line = new byte[1024];
        int len = 0;
        boolean over = false;
        long consumed = offset;
        long pos = offset;
        long lineNo = 0;
        boolean inLine = false;
        while (true) {
            buf.clear();
            int n = ch.read(buf, pos);
            if (n < 0) {
                break;
            }
            byte[] a = buf.array();
            for (int i = 0; i < n; i++) {
                byte b = a[i];
                if (b == '\n') {
                    if (!inLine) {
                        lineNo++;
                        consumed = pos + i + 1; // an empty line (or one of NULs only) is no line
                        continue;
                    }
                    if (!sink.more()) {
                        return consumed;
                    }
                    emit(sink, ++lineNo, line, len, over);
                    len = 0;
                    over = false;
                    inLine = false;
                    consumed = pos + i + 1;
                    continue;
                }
                if (b == 0) {
                    continue;
                }
                inLine = true;
                if (len < MAX_LINE_BYTES) {
                    if (len == line.length) {
                        line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, len * 2));
                    }
                    line[len++] = b;
                } else {
                    over = true;
                }
            }
            pos += n;
            if (over && sink.outOfTime()) {
                emit(sink, ++lineNo, line, len, true);
                return pos;
            }
        }
        if (inLine && takeUnfinished && sink.more()) {
            emit(sink, ++lineNo, line, len, over);
            consumed = pos;
        } else if (!inLine) {
            consumed = pos; // trailing NULs or blank lines: nothing to read again
        }
        return consumed;
    }

    private void emit(Sink sink, long lineNo, byte[] line, int len, boolean over) {
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        if (over) {
            truncated++;
        }
        if (len > 0) {
            sink.line(lineNo, line, len, over);
        }
    }
}
