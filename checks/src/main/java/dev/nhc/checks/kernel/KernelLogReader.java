package dev.nhc.checks.kernel;

import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeState;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32;

/**
 * Reads the kernel log records that are new since the last run, keeping its cursor in the
 * check's state ({@link ProbeContext#state()}, keys {@code log.*}) together with the boot id.
 *
 * <pre>{@code
 * KernelLogReader reader = new KernelLogReader(ctx, "kmsg");   // or "journal", or a file path
 * ReadStats stats = reader.read(line -> ...);                  // each new KernelLogLine, in order
 * }</pre>
 *
 * Sources:
 * <ul>
 * <li>{@code kmsg} ({@code /dev/kmsg} under the system root): records "prio,seq,usec,flags;text";
 *     cursor = last sequence number; the device is read non-blocking to its current end; a
 *     regular file at that path (tests) is read to EOF. Only kernel-facility records count.</li>
 * <li>{@code journal}: {@code journalctl -k -o short-iso-precise --show-cursor [--after-cursor=C]};
 *     cursor = the journal cursor.</li>
 * <li>a path (resolved under the system root): cursor = file identity (device+inode), byte offset
 *     and a checksum of its first bytes; a rotated, replaced or truncated file is read from the start.</li>
 * </ul>
 * A new boot id drops the kmsg and journal cursors (sequence numbers restart at boot); a file
 * outlives boots, so its cursor is kept and lines stamped before the boot are counted as
 * {@code beforeBootLines} instead of being examined (unless {@link #sinceBoot(boolean) sinceBoot(false)}).
 * The work per run is bounded: past {@link #maxLines} new lines are counted as skipped, and at
 * the check's deadline the reader stops and continues next run.
 */
public final class KernelLogReader {
    public static final long DEFAULT_MAX_LINES = 1_000_000;
    static final String KMSG_PATH = "/dev/kmsg";
    private static final int HEAD_BYTES = 256;
    /** Clock skew allowed between a log line's stamp and the boot time before calling it "before boot". */
    private static final Duration BOOT_SLACK = Duration.ofSeconds(5);

    private final ProbeContext ctx;
    private final String source;
    private final ProbeState state;
    private long maxLines = DEFAULT_MAX_LINES;
    private boolean sinceBoot = true;
    private final boolean replay;
    private String journalctl = "journalctl";
    private final LogTimestamps timestamps;

    /** {@code source}: "kmsg", "journal" or an absolute file path. */
    public KernelLogReader(ProbeContext ctx, String source) {
        this.ctx = ctx;
        java.util.Optional<KernelLogCapture> capture = ctx.service(KernelLogCapture.class);
        // A replay's capture replaces the check's own source; its lines belong to another boot.
        this.source = capture.isPresent() ? capture.get().file().toAbsolutePath().toString()
                : source == null || source.isBlank() ? "kmsg" : source;
        this.replay = capture.isPresent();
        this.sinceBoot = !replay;
        this.state = ctx.state();
        this.timestamps = new LogTimestamps(ZoneId.systemDefault(), ctx.clock().instant());
    }

    public KernelLogReader maxLines(long n) {
        this.maxLines = Math.max(0, n);
        return this;
    }

    /** false: also examine file lines stamped before this boot (replaying an old capture). */
    public KernelLogReader sinceBoot(boolean b) {
        this.sinceBoot = b && !replay;
        return this;
    }

    /** The journalctl executable for the {@code journal} source (tests point it at a fake). */
    public KernelLogReader journalctl(String path) {
        if (path != null && !path.isBlank()) {
            this.journalctl = path;
        }
        return this;
    }

    /** The current boot id from /proc/sys/kernel/random/boot_id under the system root, or null when it cannot be read. */
    public static String bootId(ProbeContext ctx) {
        try {
            String s = Files.readString(ctx.sys("/proc/sys/kernel/random/boot_id")).trim();
            return s.isEmpty() ? null : s;
        } catch (IOException e) {
            return null;
        }
    }

    /** The boot time from the btime line of /proc/stat, or null. */
    public static Instant bootTime(ProbeContext ctx) {
        try (BufferedReader r = Files.newBufferedReader(ctx.sys("/proc/stat"))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("btime ")) {
                    return Instant.ofEpochSecond(Long.parseLong(line.substring(6).trim()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return null;
        }
        return null;
    }

    /** Hands every new line to {@code sink} in log order, advances the cursor, and says what it did. */
    public ReadStats read(Consumer<KernelLogLine> sink) throws IOException {
        String boot = bootId(ctx);
        String storedBoot = state.getString("log.boot_id");
        boolean bootChanged = boot != null && storedBoot != null && !boot.equals(storedBoot);
        boolean sameSource = source.equals(state.getString("log.source"));
        Counter c = new Counter(sink, budgetEnd());
        ReadStats stats;
        if (source.equals("kmsg")) {
            stats = readKmsg(c, sameSource && !bootChanged, bootChanged);
        } else if (source.equals("journal")) {
            stats = readJournal(c, sameSource && !bootChanged, bootChanged);
        } else {
            stats = readFile(c, sameSource, bootChanged, bootTime(ctx));
        }
        state.put("log.source", source);
        if (boot != null) {
            state.put("log.boot_id", boot);
        }
        return stats;
    }

    /** Stops a little before the check's deadline so that the probe still has time to judge and answer. */
    private Instant budgetEnd() {
        Duration left = ctx.remaining();
        Duration margin = left.dividedBy(5);
        if (margin.compareTo(Duration.ofMillis(500)) > 0) {
            margin = Duration.ofMillis(500);
        }
        return ctx.clock().instant().plus(left).minus(margin);
    }

    /** Counts and bounds what goes to the sink. */
    private final class Counter {
        final Consumer<KernelLogLine> sink;
        final Instant end;
        long read;
        long unparsed;
        long skipped;
        long beforeBoot;
        boolean incomplete;

        Counter(Consumer<KernelLogLine> sink, Instant end) {
            this.sink = sink;
            this.end = end;
        }

        /** Returns false once the deadline has come (checked every 4096 lines). */
        boolean timeLeft() {
            if ((read + skipped) % 4096 == 0 && ctx.clock().instant().isAfter(end)) {
                incomplete = true;
                return false;
            }
            return true;
        }

        void offer(KernelLogLine line, Instant bootTime) {
            if (read >= maxLines) {
                skipped++;
                return;
            }
            read++;
            if (!line.timestampParsed()) {
                unparsed++;
            }
            if (sinceBoot && bootTime != null && line.time() != null && line.time().isBefore(bootTime.minus(BOOT_SLACK))) {
                beforeBoot++;
                return;
            }
            sink.accept(line);
        }
    }

    // ---- /dev/kmsg ----

    private ReadStats readKmsg(Counter c, boolean keepCursor, boolean bootChanged) throws IOException {
        Path p = ctx.sys(KMSG_PATH);
        long after = keepCursor ? state.getLong("log.seq", -1) : -1;
        Instant bootTime = bootTime(ctx);
        long[] last = {after};
        long[] lost = {0};
        Consumer<String> record = rec -> {
            int semi = rec.indexOf(';');
            String[] head = semi < 0 ? new String[0] : rec.substring(0, semi).split(",", 5);
            long prio;
            long seq;
            long usec;
            try {
                if (head.length < 3) {
                    throw new NumberFormatException();
                }
                prio = Long.parseLong(head[0]);
                seq = Long.parseLong(head[1]);
                usec = Long.parseLong(head[2]);
            } catch (NumberFormatException e) {
                c.offer(new KernelLogLine(-1, null, null, rec.strip(), false), null);
                return;
            }
            if (seq <= last[0]) {
                return;
            }
            if (last[0] >= 0 && seq > last[0] + 1) {
                lost[0] += seq - last[0] - 1;
            }
            last[0] = seq;
            if ((prio >> 3) != 0) {
                return;
            }
            String text = rec.substring(semi + 1);
            int nl = text.indexOf('\n');
            if (nl >= 0) {
                text = text.substring(0, nl);
            }
            Instant t = bootTime == null ? null : bootTime.plusNanos(usec * 1000);
            c.offer(new KernelLogLine(seq, t, usec / 1e6, text, true), null);
        };
        if (Files.isRegularFile(p)) {
            try (BufferedReader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
                String line;
                while ((line = r.readLine()) != null && c.timeLeft()) {
                    if (line.isEmpty() || line.startsWith(" ")) {
                        continue; // continuation lines carry the record's KEY=value dictionary
                    }
                    record.accept(line);
                }
            } catch (NoSuchFileException e) {
                throw new IOException("cannot read " + p + ": no such file");
            }
        } else if (!Files.exists(p)) {
            throw new IOException("cannot read " + p + ": no such file (is this a Linux host? use log: journal or a file path)");
        } else {
            try (Kmsg k = Kmsg.open(p.toString())) {
                String rec;
                while (c.timeLeft() && (rec = k.next()) != null) {
                    record.accept(rec);
                }
            }
        }
        if (last[0] >= 0) {
            state.put("log.seq", last[0]);
        }
        return new ReadStats(p.toString(), c.read, c.unparsed, c.skipped, 0, lost[0], bootChanged, after < 0, c.incomplete);
    }

    // ---- a log file ----

    private ReadStats readFile(Counter c, boolean sameSource, boolean bootChanged, Instant bootTime) throws IOException {
        Path p = ctx.sys(source);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new IOException("cannot read kernel log " + p + ": no such file");
        }
        if (!attrs.isRegularFile()) {
            throw new IOException("cannot read kernel log " + p + ": not a regular file");
        }
        String key = String.valueOf(attrs.fileKey());
        long size = attrs.size();
        long offset = state.getLong("log.offset", -1);
        int headLen = (int) state.getLong("log.head_len", 0);
        long headCrc = state.getLong("log.head_crc", -1);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            boolean restart = !sameSource || offset < 0 || !key.equals(state.getString("log.file_key")) || size < offset
                    || (headLen > 0 && headCrc != crcOfHead(ch, headLen));
            if (restart) {
                offset = 0;
                headLen = (int) Math.min(HEAD_BYTES, size);
                headCrc = crcOfHead(ch, headLen);
            } else if (headLen < HEAD_BYTES && size > headLen) {
                headLen = (int) Math.min(HEAD_BYTES, size);
                headCrc = crcOfHead(ch, headLen);
            }
            long end = scanLines(ch, offset, (lineNo, text) -> c.offer(timestamps.parse(lineNo, text), bootTime), c);
            state.put("log.file_key", key);
            state.put("log.offset", end);
            state.put("log.head_len", (long) headLen);
            state.put("log.head_crc", headCrc);
            return new ReadStats(p.toString(), c.read, c.unparsed, c.skipped, c.beforeBoot, 0, bootChanged, restart, c.incomplete);
        }
    }

    private static long crcOfHead(FileChannel ch, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(len);
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

    private interface LineHandler {
        void line(long lineNo, String text);
    }

    /**
     * Splits the file from {@code offset} into lines and returns the offset after the last one
     * handled. A last line without its newline is taken as complete: kernel loggers write whole lines.
     */
    private long scanLines(FileChannel ch, long offset, LineHandler h, Counter c) throws IOException {
        ch.position(offset);
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        byte[] line = new byte[1024];
        int len = 0;
        long consumed = offset;
        long pos = offset;
        long lineNo = 0;
        while (true) {
            buf.clear();
            int n = ch.read(buf);
            if (n < 0) {
                break;
            }
            byte[] a = buf.array();
            for (int i = 0; i < n; i++) {
                byte b = a[i];
                pos++;
                if (b != '\n') {
                    if (len == line.length) {
                        line = java.util.Arrays.copyOf(line, len * 2);
                    }
                    line[len++] = b;
                    continue;
                }
                lineNo++;
                if (!c.timeLeft()) {
                    return consumed;
                }
                emit(line, len, lineNo, h, c);
                len = 0;
                consumed = pos;
            }
        }
        if (len > 0 && c.timeLeft()) {
            lineNo++;
            emit(line, len, lineNo, h, c);
            consumed = pos;
        }
        return consumed;
    }

    private void emit(byte[] line, int len, long lineNo, LineHandler h, Counter c) {
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        if (len == 0) {
            return;
        }
        if (c.read >= maxLines) {
            c.skipped++; // counted without decoding: the bound is there to cap the work
            return;
        }
        h.line(lineNo, new String(line, 0, len, StandardCharsets.UTF_8));
    }

    // ---- journald ----

    private ReadStats readJournal(Counter c, boolean keepCursor, boolean bootChanged) throws IOException {
        String cursor = keepCursor ? state.getString("log.cursor") : null;
        List<String> argv = new ArrayList<>(List.of(journalctl, "-k", "-o", "short-iso-precise", "--no-pager", "--show-cursor", "-q"));
        if (cursor != null) {
            argv.add("--after-cursor=" + cursor);
        }
        String[] newCursor = {null};
        long[] lineNo = {0};
        ProcessRunner.Result r;
        try {
            r = ProcessRunner.of(argv)
                    .timeout(Duration.between(ctx.clock().instant(), c.end).isNegative() ? Duration.ZERO : Duration.between(ctx.clock().instant(), c.end))
                    .cleanEnvironment()
                    .onStdoutLine(text -> {
                        if (text.startsWith("-- cursor: ")) {
                            newCursor[0] = text.substring("-- cursor: ".length()).trim();
                        } else if (!text.isBlank() && !text.startsWith("-- No entries --")) {
                            c.offer(timestamps.parse(++lineNo[0], text), null);
                        }
                    })
                    .run();
        } catch (ProcessRunner.StartFailure e) {
            throw new IOException("cannot run " + journalctl + " (needed for log: journal): " + e.reason());
        } catch (InterruptedException e) {
            // the runner gave up on this check; journalctl is already killed
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading the journal with " + journalctl);
        }
        if (r.timedOut()) {
            return new ReadStats("journal", c.read, c.unparsed, c.skipped, 0, 0, bootChanged, cursor == null, true);
        }
        if (r.exitCode() != 0) {
            throw new IOException(journalctl + " -k exited with " + r.exitCode() + ": " + r.firstLine());
        }
        if (newCursor[0] != null) {
            state.put("log.cursor", newCursor[0]);
        }
        return new ReadStats("journal", c.read, c.unparsed, c.skipped, 0, 0, bootChanged, cursor == null, c.incomplete);
    }
}
