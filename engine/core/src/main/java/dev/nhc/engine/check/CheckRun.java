package dev.nhc.engine.check;

import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.probe.ProbeResult;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One check's whole life, the same whoever schedules it (as kubelet's prober worker owns its
 * probe's): whether it is for this host and due ({@code every:}; else its last result carried
 * over), its probe run on a thread of its own under its time limit and abandoned past it, what
 * the probe saw judged by the check's rules and settled by the {@link SeverityPolicy} ({@code for:},
 * {@code on_unknown}, a timeout, an error), an {@code every:} check's result remembered, a probe
 * that still hangs kept from being started again, and {@code nhc clear}. A check's result is made
 * here and nowhere else: {@code PlanExecutor} starts the due checks' units once ({@code nhc run},
 * {@code nhc replay}), the daemon keeps one per check for its life and starts it on a timer.
 *
 * <p>One run at a time: {@link #start} refuses while a run is going or the last probe still hangs,
 * and every started {@link Attempt} must be {@linkplain Attempt#await awaited}, which ends the run.
 */
public final class CheckRun {
    private final String name;
    private final StateStore store;
    private final CheckState state;
    private final CheckJudge judge;
    /** Wall-clock time for what is shown and saved (an every: check's last run); time limits are System.nanoTime's. */
    private final Clock clock;
    private final Executor probes;
    private volatile Bound bound;
    private final AtomicBoolean running = new AtomicBoolean();
    /** A probe abandoned at its time limit that has not returned yet; null or done when none hangs. */
    private volatile CompletableFuture<Void> hanging;
    /** {@code nhc clear} came while a run was going or its probe hung: forget when that ends (it writes back what it read). */
    private final AtomicBoolean clearPending = new AtomicBoolean();
    private volatile Consumer<String> afterHungClear = problem -> { };

    /** The config a run is made with; a reload rebinds the unit, and a run already going finishes with the one it began with. */
    private record Bound(Plan plan, PlannedCheck check, Map<String, Object> settings) {
        Bound(Plan plan, PlannedCheck check) {
            this(plan, check, plan.settings().values().asMap());
        }
    }

    /**
     * What a run is for: the node, the services its probe may ask for (replayed captures, the other
     * checks' observations), when the whole run must end ({@link System#nanoTime} value), and whether
     * an {@code every:} check that is not due shows its last result instead of running.
     */
    public record Occasion(String node, String hostName, Map<Class<?>, Object> services, long runDeadlineNanos, boolean bySchedule) {
        public Occasion {
            hostName = hostName == null ? node : hostName;
            services = Map.copyOf(services);
        }
    }

    /** When a clear took effect: {@code NOW}; by a run that ended meanwhile; when the running run ends; when the hung probe returns. */
    public enum ClearTime { NOW, BY_RUN_JUST_ENDED, AFTER_RUN, AFTER_HANG }

    /** What {@link #clear} did; {@code problem} says why the forgetting could not be saved, or is null. */
    public record Cleared(ClearTime when, String problem) {
    }

    /** @param probes where probes run: threads that may be abandoned (daemon threads) */
    public CheckRun(Plan plan, PlannedCheck check, StateStore store, SeverityPolicy policy, Clock clock, Executor probes) {
        this.name = check.name();
        this.store = store;
        this.state = new CheckState(store, name);
        this.judge = new CheckJudge(name, policy, state);
        this.clock = clock;
        this.probes = probes;
        this.bound = new Bound(plan, check);
    }

    public String name() {
        return name;
    }

    /** The check as it now runs. */
    public PlannedCheck check() {
        return bound.check();
    }

    public CheckState state() {
        return state;
    }

    /** A reloaded config: the next run uses this; one going now finishes with the config it began with. */
    public void rebind(Plan plan, PlannedCheck check) {
        if (!check.name().equals(name)) {
            throw new IllegalArgumentException("check " + check.name() + " is not " + name);
        }
        bound = new Bound(plan, check);
    }

    /**
     * Told (with the problem saving it, or null) when a clear that waited for a hung probe has been
     * done, the probe having returned; one that waited for a run is told by that run's
     * {@link Attempt#cleared()}.
     */
    public void afterHungClear(Consumer<String> listener) {
        this.afterHungClear = listener;
    }

    /** Whether the probe abandoned last is still running (a blocked native call): no run starts until it returns. */
    public boolean hung() {
        CompletableFuture<Void> h = hanging;
        return h != null && !h.isDone();
    }

    /** Whether a run is going now. */
    public boolean running() {
        return running.get();
    }

    /** When an {@code every:} check is next due by its saved last run; null without {@code every:}, or when it is due now. */
    public Instant nextDue(Instant now) {
        Duration every = bound.check().every();
        Instant last = every == null ? null : state.lastRun(now);
        return last == null ? null : last.plus(every);
    }

    /**
     * Starts a run: a check not for this host is skipped and one not due shows its last result at
     * once, any other has its probe started on its own thread. Null when a run is going, or the last
     * probe still hangs: another would only pile up threads.
     */
    public Attempt start(Occasion o) {
        if (hung() || !running.compareAndSet(false, true)) {
            return null;
        }
        Bound b = bound;
        try {
            PlannedCheck c = b.check();
            if (!c.check().on().matches(o.node(), o.hostName())) {
                return new Attempt(b, judge.skipped(c, "not for this host (on: " + c.check().on() + ")"));
            }
            Instant now = clock.instant();
            Instant due = o.bySchedule() ? nextDue(now) : null;
            if (due != null && due.isAfter(now)) {
                return new Attempt(b, judge.carriedOver(c, now, due));
            }
            long t0 = System.nanoTime();
            long timeout = c.timeout().toNanos();
            long left = Math.max(0, o.runDeadlineNanos() - t0);
            Duration limit = Duration.ofNanos(Math.min(timeout, left));
            CheckContext ctx = new CheckContext(name, c.check().with(), b.plan().settings().root(), store, state.probeSection(),
                    now.plus(limit), limit, o.node(), b.settings(), b.plan().config()::section, clock, o.services(), c.rules().fieldsRead());
            CompletableFuture<Void> returned = new CompletableFuture<>();
            FutureTask<Timed> probe = new FutureTask<>(() -> {
                try {
                    return probeAndSave(c, ctx);
                } finally {
                    returned.complete(null);
                }
            });
            probes.execute(probe);
            return new Attempt(b, probe, returned, t0, t0 + limit.toNanos(), left <= timeout);
        } catch (RuntimeException | Error e) {
            running.set(false);
            throw e;
        }
    }

    /** A probe's result and how long the probe itself took (not the time its result waited to be collected). */
    private record Timed(ProbeResult result, long millis) {
    }

    /** The probe, then its state written from the same thread while other checks still run. */
    private static Timed probeAndSave(PlannedCheck check, CheckContext ctx) throws Exception {
        long t0 = System.nanoTime();
        try {
            ProbeResult r = check.probe().probe(ctx);
            return new Timed(r, (System.nanoTime() - t0) / 1_000_000);
        } finally {
            ctx.saveState();
        }
    }

    /** One started run; {@link #await} gives its result and ends it. */
    public final class Attempt {
        private final Bound bound;
        private final CheckResult ready;
        private final FutureTask<Timed> probe;
        private final CompletableFuture<Void> returned;
        private final long startNanos;
        private final long dueNanos;
        private final boolean byRunDeadline;
        private Cleared cleared;

        private Attempt(Bound bound, CheckResult ready) {
            this(bound, ready, null, null, System.nanoTime(), 0, false);
        }

        private Attempt(Bound bound, FutureTask<Timed> probe, CompletableFuture<Void> returned, long startNanos, long dueNanos,
                        boolean byRunDeadline) {
            this(bound, null, probe, returned, startNanos, dueNanos, byRunDeadline);
        }

        private Attempt(Bound bound, CheckResult ready, FutureTask<Timed> probe, CompletableFuture<Void> returned, long startNanos,
                        long dueNanos, boolean byRunDeadline) {
            this.bound = bound;
            this.ready = ready;
            this.probe = probe;
            this.returned = returned;
            this.startNanos = startNanos;
            this.dueNanos = dueNanos;
            this.byRunDeadline = byRunDeadline;
        }

        /** The check as this run was made. */
        public PlannedCheck check() {
            return bound.check();
        }

        /** Waits for the probe until its time limit, and judges: the check's result. Ends the run. */
        public CheckResult await() {
            try {
                return ready != null ? ready : outcome();
            } finally {
                cleared = end();
            }
        }

        /**
         * The {@code nhc clear} that came while this run went, done as it ended (its result is from
         * before it: the owner runs the check again); null when none came.
         */
        public Cleared cleared() {
            return cleared;
        }

        private CheckResult outcome() {
            PlannedCheck c = bound.check();
            OnUnknown onUnknown = bound.plan().settings().onUnknown();
            CheckResult r;
            boolean carried = false;
            try {
                Timed t = probe.get(Math.max(0, dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                carried = t.result().carriedOver();
                r = judge.judged(c, onUnknown, t.result(), t.millis());
            } catch (TimeoutException | CancellationException e) {
                // Never waited for past its limit: interrupted and left behind (a blocked native call cannot be stopped).
                abandon();
                r = judge.timedOut(c, onUnknown, Duration.ofNanos(dueNanos - startNanos), byRunDeadline, elapsedMillis());
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                LoggerFactory.getLogger(CheckRun.class).debug("check {} failed", name, cause);
                r = judge.couldNotRun(c, onUnknown, "cannot run: " + CheckJudge.describe(cause), elapsedMillis());
            } catch (InterruptedException e) {
                // The owner is stopping: whatever the probe does now, it is not waited for.
                Thread.currentThread().interrupt();
                abandon();
                r = judge.couldNotRun(c, onUnknown, "interrupted", elapsedMillis());
            }
            if (c.every() != null && r.status() != CheckStatus.SKIPPED && !carried) {
                state.remember(clock.instant(), r.findings());
            }
            return r;
        }

        private void abandon() {
            probe.cancel(true);
            if (!returned.isDone()) {
                hanging = returned;
            }
        }

        private long elapsedMillis() {
            return (System.nanoTime() - startNanos) / 1_000_000;
        }
    }

    // ---- the end of a run, and nhc clear

    /** Ends a run, doing a clear that came while it went; returns it, or null. */
    private Cleared end() {
        try {
            // Still holding the run: nothing starts between the forgetting and whatever the owner does next.
            return clearPending.getAndSet(false) ? new Cleared(ClearTime.AFTER_RUN, forget()) : null;
        } finally {
            running.set(false);
        }
    }

    /**
     * {@code nhc clear}: forgets what the check remembers. A run going now read the old state and
     * writes it back when it ends (a latch, a cursor), so the clear then happens when that run ends
     * (its {@link Attempt#cleared()} says so), and likewise when the last probe still hangs: when it
     * returns ({@link #afterHungClear}). Either way the owner then runs the check again.
     */
    public Cleared clear() {
        clearPending.set(true);
        if (!running.compareAndSet(false, true)) {
            return new Cleared(ClearTime.AFTER_RUN, null); // the running one forgets when it ends
        }
        try {
            if (!clearPending.getAndSet(false)) {
                return new Cleared(ClearTime.BY_RUN_JUST_ENDED, null);
            }
            CompletableFuture<Void> h = hanging;
            if (h != null && !h.isDone()) {
                clearPending.set(true);
                h.whenComplete((x, e) -> clearAfterHang());
                return new Cleared(ClearTime.AFTER_HANG, null);
            }
            return new Cleared(ClearTime.NOW, forget());
        } finally {
            running.set(false);
        }
    }

    /** The hung probe returned (having written its state): forget now, unless a run began meanwhile, whose end does. */
    private void clearAfterHang() {
        if (clearPending.get() && running.compareAndSet(false, true)) {
            Cleared c = end();
            if (c != null) {
                afterHungClear.accept(c.problem());
            }
        }
    }

    /** Forgets and saves; returns why it could not be saved, or null. */
    private String forget() {
        try {
            state.forget(bound.check().probe());
            return null;
        } catch (IOException e) {
            return "could not save state in " + store.dir() + ": " + e.getMessage();
        }
    }
}
