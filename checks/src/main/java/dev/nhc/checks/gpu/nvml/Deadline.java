package dev.nhc.checks.gpu.nvml;

import java.time.Duration;

/**
 * How long one NVML call may take: the per-call limit, cut short by the probe's own deadline so
 * that the probe still has a tenth of its time left to report what hung.
 */
final class Deadline {
    private final long endNanos;
    private final Duration callLimit;

    Deadline(Duration remaining, Duration callLimit) {
        long budget = Math.max(0, remaining.toNanos());
        this.endNanos = System.nanoTime() + budget - budget / 10;
        this.callLimit = callLimit;
    }

    /** The limit for the next call: at least 50 ms, so a call is never judged on no time at all. */
    Duration nextCall() {
        long left = endNanos - System.nanoTime();
        return Duration.ofNanos(Math.max(Duration.ofMillis(50).toNanos(), Math.min(left, callLimit.toNanos())));
    }

    /** Whether the probe's own time (not the call limit) is what bounds the next call. */
    boolean cutByProbeDeadline() {
        return endNanos - System.nanoTime() < callLimit.toNanos();
    }
}
