package dev.nhc.checks.gpu.calls;

import java.time.Duration;

/**
 * The time limits of one probe's GPU library calls: each call may take the per-call limit, and all
 * of them together must end before the probe's deadline, less a tenth kept for reporting what hung.
 */
public final class Deadline {
    /** A call is never judged on less than this, even when the probe is nearly out of time. */
    public static final long MIN_NANOS = Duration.ofMillis(50).toNanos();

    private final long endNanos;
    private final long callLimitNanos;

    public Deadline(Duration remaining, Duration callLimit) {
        long budget = Math.max(0, remaining.toNanos());
        this.endNanos = System.nanoTime() + budget - budget / 10;
        this.callLimitNanos = callLimit.toNanos();
    }

    public long endNanos() {
        return endNanos;
    }

    public long callLimitNanos() {
        return callLimitNanos;
    }

    /** The limit for one call starting now: the per-call limit, cut by the probe's end, at least 50 ms. */
    public Duration nextCall() {
        long left = endNanos - System.nanoTime();
        return Duration.ofNanos(Math.max(MIN_NANOS, Math.min(left, callLimitNanos)));
    }
}
