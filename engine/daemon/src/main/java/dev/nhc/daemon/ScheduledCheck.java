package dev.nhc.daemon;

import dev.nhc.engine.check.CheckRun;
import dev.nhc.model.CheckResult;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One check's place in the daemon's schedule: its {@link CheckRun} (the unit that makes its
 * results, kept for the daemon's life and rebound by reloads), when it runs next, and its latest
 * result. One object per check name for as long as the config has the check, so that a reload
 * never starts a second run of a check whose run, or hung probe, is still going.
 */
final class ScheduledCheck {
    final CheckRun unit;
    volatile Duration every;
    /** Bumped when a reload changed the check (its probe or interval): a run begun before is no answer for it any more. */
    volatile int epoch;
    /** The config no longer has the check, or the daemon stopped: nothing of it is scheduled or recorded again. */
    volatile boolean retired;
    volatile ScheduledFuture<?> next;
    volatile CheckResult last;
    volatile Instant finishedAt;
    /** {@link #finishedAt} on the monotonic clock, for its age; 0 before the first result. */
    volatile long finishedNanos;
    /** Run again as soon as the current run ends (an event or a clear came while it ran). */
    final AtomicBoolean rerun = new AtomicBoolean();
    /** Scheduled runs not started because the probe still hangs (for tests: the signal that the schedule went on). */
    final AtomicInteger skippedWhileHung = new AtomicInteger();

    ScheduledCheck(CheckRun unit, Duration every) {
        this.unit = unit;
        this.every = every;
    }

    String name() {
        return unit.name();
    }

    /** Its latest result is a timeout, and the probe it abandoned still hangs (or its run is still going). */
    boolean stillHung() {
        CheckResult r = last;
        return r != null && r.status() == dev.nhc.model.CheckStatus.TIMED_OUT && (unit.hung() || unit.running());
    }

    void cancelNext() {
        ScheduledFuture<?> f = next;
        if (f != null) {
            f.cancel(false);
        }
    }
}
