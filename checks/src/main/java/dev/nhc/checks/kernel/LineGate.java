package dev.nhc.checks.kernel;

import java.time.Clock;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Between a source and the sink of a {@link KernelLogReader}: hands on only what the kernel wrote
 * (a record of the kernel's, the further lines of one; in a replay also lines nobody can place),
 * counts the rest, bounds the work (at most {@code maxLines} lines, until the deadline), and marks
 * where this boot starts when the kernel's banner comes.
 */
final class LineGate {
    /** The kernel's banner, its first record at every boot (init/version.c linux_banner). */
    private static final String BANNER_START = "Linux version ";
    private static final Pattern BANNER = Pattern.compile(BANNER_START + "\\S+ \\(");
    /** Lines between two looks at the clock: a sink's bounded regexes may take up to a second on a hostile line. */
    private static final int CLOCK_EVERY = 4;

    private final KernelLogReader.Sink sink;
    final Instant end;
    private final Clock clock;
    private final long maxLines;
    private final boolean replay;
    long read;
    long unparsed;
    long other;
    long skipped;
    long beforeBoot;
    long truncated;
    boolean incomplete;
    /** The kernel's banner starts this boot: lines handed before it were an earlier boot's. */
    boolean placeByBanner;
    /** Lines handed on since the read began or the last banner. */
    private long handedThisBoot;
    /** Whether the record a continuation line belongs to was handed on. */
    private boolean lastHanded;

    LineGate(KernelLogReader.Sink sink, Instant end, Clock clock, long maxLines, boolean replay) {
        this.sink = sink;
        this.end = end;
        this.clock = clock;
        this.maxLines = maxLines;
        this.replay = replay;
    }

    /** The per-run bound is reached: further lines are only counted. */
    boolean full() {
        return read >= maxLines;
    }

    /** Returns false once the deadline has come (checked every {@link #CLOCK_EVERY} lines). */
    boolean timeLeft() {
        if ((read + skipped) % CLOCK_EVERY == 0) {
            return !outOfTime();
        }
        return true;
    }

    /** Reads the clock now. */
    boolean outOfTime() {
        if (clock.instant().isAfter(end)) {
            incomplete = true;
            return true;
        }
        return false;
    }

    void offer(KernelLogLine line) {
        if (full()) {
            skipped++;
            return;
        }
        read++;
        switch (line.origin()) {
            case KERNEL -> {
                if (placeByBanner && line.message().startsWith(BANNER_START) && BANNER.matcher(line.message()).lookingAt()
                        && !RecordText.userLed(line.message())) {
                    beforeBoot += handedThisBoot;
                    handedThisBoot = 0;
                    sink.earlierBoot();
                }
                hand(line);
            }
            case CONTINUATION -> {
                if (lastHanded) {
                    sink.line(line);
                } else {
                    other++;
                }
            }
            case OTHER -> {
                other++;
                lastHanded = false;
            }
            case UNKNOWN -> {
                // Nobody can say who wrote it: a replay judges it (an admin chose the capture), a run does not.
                if (replay) {
                    hand(line);
                } else {
                    unparsed++;
                    lastHanded = false;
                }
            }
        }
    }

    private void hand(KernelLogLine line) {
        handedThisBoot++;
        lastHanded = true;
        sink.line(line);
    }
}
