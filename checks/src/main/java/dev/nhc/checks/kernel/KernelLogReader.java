package dev.nhc.checks.kernel;

import dev.nhc.checks.logfile.GrowingLogFile;
import dev.nhc.checks.logfile.LineScanner;
import dev.nhc.checks.kernel.KernelLogLine.Origin;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeState;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * Reads the kernel log records that are new since the last run, keeping its cursor in the
 * check's state ({@link ProbeContext#state()}, keys {@code log.*}) together with the boot id.
 *
 * <pre>{@code
 * KernelLogReader reader = new KernelLogReader(ctx, "kmsg");   // or "journal", or a file path
 * ReadStats stats = reader.read(line -> ...);                  // each new KernelLogLine, in order
 * }</pre>
 *
 * Only what the kernel wrote reaches the sink: a line decides a node only if it provably came
 * from the kernel ({@link KernelLogLine.Origin#KERNEL}, and the further lines of such a record);
 * other programs' lines are counted ({@code otherLines}), lines nobody can be told to have written
 * are counted ({@code unparsedLines}) and, except in a replay, not handed on. Sources:
 * <ul>
 * <li>{@code kmsg} ({@code /dev/kmsg} under the system root): records "prio,seq,usec,flags;text";
 *     cursor = last sequence number; the device is read non-blocking to its current end; a
 *     regular file at that path (tests) is read to EOF. Only records of facility 0 (prio >> 3)
 *     are the kernel's: the others were written to /dev/kmsg by programs.</li>
 * <li>{@code journal}: {@code journalctl -k -o json [--after-cursor=C]}, each entry checked for
 *     {@code _TRANSPORT=kernel} (a field journald sets, not its client) and this boot's
 *     {@code _BOOT_ID}; cursor = the journal cursor.</li>
 * <li>a path (resolved under the system root): dmesg text, or a syslog file whose lines count only
 *     when tagged {@code kernel:} ({@link LogTimestamps}). Cursor = device, inode, size, byte
 *     offset, and checksums of the first bytes and of the bytes before the offset. A file renamed
 *     away by rotation is found again by its inode in the same directory ({@code kern.log.1}) and
 *     read to its end before the new file is read from its start; a truncated, replaced or
 *     rewritten file is read from its start.</li>
 * </ul>
 * Lines are bounded ({@link LineScanner}): an endless line keeps its head and is counted as
 * truncated, NUL padding is dropped, and the cursor always moves past what was scanned. Every
 * cursor value read back from state is checked ({@link KernelLogCursor}); an invalid one is reset
 * and reported in {@link ReadStats#warnings()}.
 *
 * <p>Which boot a line belongs to is told by position, never by comparing its wall-clock stamp
 * with the boot time (NTP steps the clock, the syslog daemon stamps with whatever clock it had).
 * A new boot id drops the kmsg and journal cursors (sequence numbers restart at boot; journalctl
 * {@code -k} reads this boot only). A file outlives boots, so its cursor is kept; when it was not
 * taken in this boot (the first run, the first after a reboot, a reset), the kernel's banner
 * ("Linux version …", the first record of every boot) marks where this boot starts: the lines
 * before it are counted as {@code beforeBootLines} and forgotten ({@link Sink#earlierBoot}),
 * unless {@link #sinceBoot(boolean) sinceBoot(false)}. A line that cannot be placed counts as
 * this boot's.
 * The work per run is bounded: past {@link #maxLines} new lines are counted as skipped, and at
 * the check's deadline the reader stops and continues next run.
 */
public final class KernelLogReader {
    public static final long DEFAULT_MAX_LINES = 1_000_000;
    static final String KMSG_PATH = "/dev/kmsg";

    /** What the reader hands the lines to. */
    public interface Sink {
        /** One new line of the kernel's, in log order. */
        void line(KernelLogLine line);

        /**
         * The kernel's banner came: every line handed before it in this read belongs to an earlier
         * boot; forget what they said. Only in a read whose cursor was not taken in this boot.
         */
        default void earlierBoot() {
        }
    }

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

    /** false: also examine file lines of earlier boots (replaying an old capture). */
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
    public ReadStats read(Sink sink) throws IOException {
        KernelLogCursor cursor = new KernelLogCursor(state);
        String boot = bootId(ctx);
        String storedBoot = cursor.bootId();
        boolean bootChanged = boot != null && storedBoot != null && !boot.equals(storedBoot);
        boolean sameSource = source.equals(cursor.source());
        // A sequence number or journal cursor is only good for the boot it was stored with.
        boolean keepCursor = sameSource && !bootChanged && !cursor.bootIdDropped();
        LineGate c = new LineGate(sink, budgetEnd(), ctx.clock(), maxLines, replay);
        Outcome o;
        if (source.equals("kmsg")) {
            o = readKmsg(c, cursor, keepCursor);
        } else if (source.equals("journal")) {
            o = readJournal(c, cursor, keepCursor, boot);
        } else {
            // Lines after a cursor taken in this boot are this boot's; otherwise the banner says where it starts.
            c.placeByBanner = sinceBoot && !(keepCursor && boot != null && cursor.bootId() != null && cursor.file() != null);
            o = readFile(c, cursor, sameSource);
        }
        cursor.saveCommon(source, boot);
        return new ReadStats(o.source, c.read, c.unparsed, c.other, c.skipped, c.beforeBoot, o.lost, bootChanged, o.restarted,
                o.incomplete || c.incomplete, c.truncated, cursor.warnings());
    }

    /** What one source's read did, beside the counts. */
    private record Outcome(String source, long lost, boolean restarted, boolean incomplete) {
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

    /** Scans a file from {@code offset} with bounded lines, handing each to the counter; returns the offset reached. */
    private long scan(FileChannel ch, long offset, LineGate c, LineHandler h) throws IOException {
        LineScanner scanner = new LineScanner();
        long end = scanner.scan(ch, offset, new LineScanner.Sink() {
            @Override
            public boolean more() {
                return c.timeLeft();
            }

            @Override
            public boolean outOfTime() {
                return c.outOfTime();
            }

            @Override
            public void line(long lineNo, byte[] bytes, int len, boolean truncated) {
                if (c.full()) {
                    c.skipped++; // counted without decoding: the bound is there to cap the work
                    return;
                }
                h.line(lineNo, new String(bytes, 0, len, StandardCharsets.UTF_8));
            }
        });
        c.truncated += scanner.truncated();
        return end;
    }

    private interface LineHandler {
        void line(long lineNo, String text);
    }

    // ---- /dev/kmsg ----

    private Outcome readKmsg(LineGate c, KernelLogCursor cursor, boolean keepCursor) throws IOException {
        Path p = ctx.sys(KMSG_PATH);
        long after = keepCursor ? cursor.seq() : -1;
        Instant bootTime = bootTime(ctx);
        KmsgPass pass = new KmsgPass(c, after, bootTime, true);
        readKmsgRecords(p, c, pass);
        if (after >= 0 && pass.newest >= 0 && pass.newest < after) {
            // Stored with this boot's id yet past every record: it would skip every record for good.
            cursor.dropSeq(pass.newest);
            after = -1;
            pass = new KmsgPass(c, after, bootTime, false);
            readKmsgRecords(p, c, pass);
        }
        if (pass.last >= 0) {
            cursor.saveSeq(pass.last);
        }
        return new Outcome(p.toString(), pass.lost, after < 0, false);
    }

    /** One read of kmsg records after a sequence number. */
    private final class KmsgPass {
        final LineGate c;
        final Instant bootTime;
        /** false on a second pass over the same records: malformed ones were handed on already. */
        final boolean offerMalformed;
        long last;
        long newest = -1;
        long lost;

        KmsgPass(LineGate c, long after, Instant bootTime, boolean offerMalformed) {
            this.c = c;
            this.last = after;
            this.bootTime = bootTime;
            this.offerMalformed = offerMalformed;
        }

        void record(String rec) {
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
                if (offerMalformed) {
                    c.offer(new KernelLogLine(-1, null, null, rec.strip(), Origin.UNKNOWN));
                }
                return;
            }
            newest = Math.max(newest, seq);
            if (seq <= last) {
                return;
            }
            if (last >= 0 && seq > last + 1) {
                lost += seq - last - 1;
            }
            last = seq;
            String text = rec.substring(semi + 1);
            int nl = text.indexOf('\n');
            if (nl >= 0) {
                text = text.substring(0, nl); // the record's dictionary follows; line breaks in its text are escaped
            }
            // The time only names the record in messages; its place in the boot is its sequence number and usec.
            Instant t = bootTime == null ? null : bootTime.plusNanos(usec * 1000);
            c.offer(new KernelLogLine(seq, t, usec / 1e6, text, (prio >> 3) == 0 ? Origin.KERNEL : Origin.OTHER));
        }
    }

    private void readKmsgRecords(Path p, LineGate c, KmsgPass pass) throws IOException {
        if (Files.isRegularFile(p)) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                scan(ch, 0, c, (lineNo, line) -> {
                    if (!line.startsWith(" ")) {
                        pass.record(line); // continuation lines carry the record's KEY=value dictionary
                    }
                });
            } catch (NoSuchFileException e) {
                throw new IOException("cannot read " + p + ": no such file");
            }
        } else if (!Files.exists(p)) {
            throw new IOException("cannot read " + p + ": no such file (is this a Linux host? use log: journal or a file path)");
        } else {
            try (Kmsg k = Kmsg.open(p.toString())) {
                String rec;
                while (c.timeLeft() && (rec = k.next()) != null) {
                    pass.record(rec);
                }
            }
        }
    }

    // ---- a log file ----

    private Outcome readFile(LineGate c, KernelLogCursor cursor, boolean sameSource) throws IOException {
        Path p = ctx.sys(source);
        LineHandler h = (lineNo, text) -> c.offer(timestamps.parse(lineNo, text));
        GrowingLogFile.Read r = new GrowingLogFile(p, "kernel log " + p).read(sameSource ? cursor.file() : null, new GrowingLogFile.Lines() {
            @Override
            public long scan(FileChannel ch, long offset) throws IOException {
                return KernelLogReader.this.scan(ch, offset, c, h);
            }

            @Override
            public boolean stopped() {
                return c.incomplete;
            }
        });
        cursor.saveFile(r.position());
        return new Outcome(r.file().toString(), 0, r.restarted(), r.stopped());
    }

    // ---- journald ----

    private Outcome readJournal(LineGate c, KernelLogCursor cursor, boolean keepCursor, String boot) throws IOException {
        JournalSource.Read r = new JournalSource(journalctl, ctx.clock()).read(c, cursor, keepCursor, boot);
        return new Outcome("journal", 0, r.restarted(), r.incomplete());
    }
}
