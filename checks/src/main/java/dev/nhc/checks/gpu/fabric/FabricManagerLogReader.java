package dev.nhc.checks.gpu.fabric;

import dev.nhc.probe.ProbeState;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.zip.CRC32;

/**
 * Reads the lines of the fabric manager log that are new since the last run, keeping its cursor in
 * the check's state: the file's identity (device and inode), the byte offset read up to, and a
 * checksum of the file's first bytes. A file that was replaced, rotated, truncated or rewritten
 * is read from its start. Every value read back from the state is checked; one that is not what
 * this reader wrote (a hand edit, an older nhc) drops the cursor, and the file is read from its
 * start, rather than trusting an offset into the wrong file.
 *
 * <p>A last line without its newline is left for the next run (the fabric manager may be writing
 * it), except when reading a capture whole. The work per run is bounded by a line count and the
 * check's deadline; what is left is read next run, so no line is ever skipped unread.
 */
final class FabricManagerLogReader {
    static final String KEY_PREFIX = "fmlog.";
    static final String FILE = "fmlog.file";
    static final String OFFSET = "fmlog.offset";
    static final String HEAD_LEN = "fmlog.head_len";
    static final String HEAD_CRC = "fmlog.head_crc";
    static final int HEAD_BYTES = 256;
    /** Longer lines are cut here (the rest of the line is still skipped to its newline). */
    static final int MAX_LINE_BYTES = 64 * 1024;

    /**
     * @param linesRead lines handed on this run
     * @param behind    stopped at the line bound or the deadline: the rest is read next run
     * @param restarted read from the file's start (first run, another file, or a cursor that did not hold)
     */
    record Stats(long linesRead, boolean behind, boolean restarted) {
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
        BasicFileAttributes attrs = attributes();
        String identity = String.valueOf(attrs.fileKey());
        long size = attrs.size();
        Cursor c = Cursor.load(state);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            boolean restart = c == null || !c.file.equals(identity) || c.offset > size || c.headCrc != crc(ch, c.headLen);
            long from = restart ? 0 : c.offset;
            Scan scan = scan(ch, from, sink, false);
            int headLen = (int) Math.min(HEAD_BYTES, Math.max(size, scan.end));
            new Cursor(identity, scan.end, headLen, crc(ch, headLen)).save(state);
            return new Stats(scan.lines, scan.behind, restart);
        }
    }

    /** Every line of the file, the last one even without its newline (a capture); the state is not touched. */
    Stats readWhole(Consumer<String> sink) throws IOException {
        attributes();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Scan scan = scan(ch, 0, sink, true);
            return new Stats(scan.lines, scan.behind, true);
        }
    }

    /** Only a regular file is read: a FIFO or a device at the log's path would block or never end. */
    private BasicFileAttributes attributes() throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "cannot read " + file + ": no such file");
        }
        if (!attrs.isRegularFile()) {
            throw new IOException("cannot read " + file + ": not a regular file");
        }
        return attrs;
    }

    private record Scan(long end, long lines, boolean behind) {
    }

    private Scan scan(FileChannel ch, long from, Consumer<String> sink, boolean takeUnfinished) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        byte[] line = new byte[256];
        int len = 0;
        boolean cut = false;
        long pos = from;
        long consumed = from;
        long lines = 0;
        while (true) {
            buf.clear();
            int n = ch.read(buf, pos);
            if (n < 0) {
                break;
            }
            byte[] a = buf.array();
            for (int i = 0; i < n; i++) {
                byte b = a[i];
                pos++;
                if (b != '\n') {
                    if (b == 0) {
                        continue;   // NUL padding (a crash, a preallocated file) is not text
                    }
                    if (len == MAX_LINE_BYTES) {
                        cut = true;
                        continue;
                    }
                    if (len == line.length) {
                        line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, len * 2));
                    }
                    line[len++] = b;
                    continue;
                }
                if (lines >= maxLines || (lines % 1024 == 0 && clock.instant().isAfter(stopAt))) {
                    return new Scan(consumed, lines, true);
                }
                emit(line, len, cut, sink);
                lines++;
                len = 0;
                cut = false;
                consumed = pos;
            }
        }
        if (takeUnfinished && len > 0 && lines < maxLines) {
            emit(line, len, cut, sink);
            lines++;
            consumed = pos;
        }
        return new Scan(consumed, lines, false);
    }

    private static void emit(byte[] line, int len, boolean cut, Consumer<String> sink) {
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        if (len > 0) {
            String text = new String(line, 0, len, StandardCharsets.UTF_8);
            sink.accept(cut ? text + "…" : text);
        }
    }

    private static long crc(FileChannel ch, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Math.max(0, Math.min(len, HEAD_BYTES)));
        long pos = 0;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, b.position());
        return crc.getValue();
    }

    /** The cursor as kept in the state. */
    private record Cursor(String file, long offset, int headLen, long headCrc) {

        /** The stored cursor, or null when there is none or any of its values is not one this reader writes. */
        static Cursor load(ProbeState state) {
            Object f = state.get(FILE);
            Object o = state.get(OFFSET);
            Object hl = state.get(HEAD_LEN);
            Object hc = state.get(HEAD_CRC);
            if (!(f instanceof String file) || file.isEmpty() || file.length() > 200
                    || !(o instanceof Number offset) || !(hl instanceof Number headLen) || !(hc instanceof Number headCrc)) {
                return null;
            }
            if (!whole(offset) || offset.longValue() < 0 || !whole(headLen) || headLen.longValue() < 0 || headLen.longValue() > HEAD_BYTES
                    || !whole(headCrc) || headCrc.longValue() < 0 || headCrc.longValue() > 0xffffffffL) {
                return null;
            }
            return new Cursor(file, offset.longValue(), headLen.intValue(), headCrc.longValue());
        }

        private static boolean whole(Number n) {
            return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte;
        }

        void save(ProbeState state) {
            state.put(FILE, file);
            state.put(OFFSET, offset);
            state.put(HEAD_LEN, (long) headLen);
            state.put(HEAD_CRC, headCrc);
        }
    }
}
