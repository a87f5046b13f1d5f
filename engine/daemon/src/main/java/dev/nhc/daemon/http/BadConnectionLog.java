package dev.nhc.daemon.http;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One line per bad connection (reset, cut off at a deadline, refused at a limit), without a stack
 * trace, at most {@link #PER_MINUTE} lines a minute; what was not logged is counted and said in one
 * line when the minute is over. A client that resets thousands of connections costs a few lines,
 * not a log that fills the disk. Every bad connection is counted ({@link #count()}) for /metrics.
 */
final class BadConnectionLog {
    static final int PER_MINUTE = 10;
    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final Consumer<String> log;
    private final String who;
    private final LongSupplier nanos;
    private final AtomicLong count = new AtomicLong();
    private long windowStart;
    private int inWindow;
    private long suppressed;

    BadConnectionLog(Consumer<String> log, String who, LongSupplier nanos) {
        this.log = log;
        this.who = who;
        this.nanos = nanos;
        this.windowStart = nanos.getAsLong();
    }

    /** A bad connection: {@code what} is one short line (client address and what happened). */
    synchronized void bad(String what) {
        count.incrementAndGet();
        long now = nanos.getAsLong();
        if (now - windowStart >= MINUTE_NANOS) {
            if (suppressed > 0) {
                log.accept(who + ": " + suppressed + " more bad connection" + (suppressed == 1 ? " was" : "s were")
                        + " not logged one by one in the last minute");
            }
            windowStart = now;
            inWindow = 0;
            suppressed = 0;
        }
        if (inWindow < PER_MINUTE) {
            inWindow++;
            log.accept(who + ": " + what);
        } else {
            suppressed++;
        }
    }

    long count() {
        return count.get();
    }
}
