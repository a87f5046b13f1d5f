package dev.nhc.daemon;

import dev.nhc.engine.check.CheckRun;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Observation;
import dev.nhc.probe.PriorObservations;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts each check's {@link CheckRun} on its own timer ({@code every:}, else
 * {@code settings.interval}), each run awaited on a worker thread so that a slow check never
 * delays another; reruns at once on a trigger, a recheck or a clear; and swaps in a reloaded
 * plan. What a run produces is the unit's business: this only decides when. Every delay and age
 * is on the monotonic clock; the wall clock only says, after a restart, when an {@code every:}
 * check last ran.
 */
final class CheckScheduler implements AutoCloseable {
    /** The daemon's side of a run: its results, and where it says what happened. */
    interface Listener {
        /** A check's result came in (recorded in its {@link ScheduledCheck}); null: a reload changed the checks. */
        void changed(ScheduledCheck finished);

        void log(String line);
    }

    private final StateStore store;
    private final SeverityPolicy policy;
    private final Clock clock;
    private final String node;
    /** The kernel's full host name for host patterns with a dot; null: the node's name. */
    private final String hostName;
    private final Map<Class<?>, Object> services;
    private final Listener listener;
    private final ScheduledExecutorService timer;
    /** Where runs are awaited (one thread per running check). */
    private final ExecutorService workers;
    /** Where probes run: a hung one keeps its thread, abandoned. */
    private final ExecutorService probes;
    private volatile Plan plan;
    private volatile Map<String, ScheduledCheck> checks = Map.of();
    private volatile boolean closed;

    /** Schedules nothing until {@link #start}; {@code plan} is in place already, for what starts before the checks. */
    CheckScheduler(Plan plan, StateStore store, SeverityPolicy policy, Clock clock, String node, String hostName,
                   Map<Class<?>, Object> services, Listener listener) {
        this.plan = plan;
        this.store = store;
        this.policy = policy;
        this.clock = clock;
        this.node = node;
        this.hostName = hostName;
        this.services = Map.copyOf(services);
        this.listener = listener;
        AtomicInteger w = new AtomicInteger();
        AtomicInteger p = new AtomicInteger();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, "nhc-schedule"));
        this.workers = Executors.newCachedThreadPool(r -> daemonThread(r, "nhc-run-" + w.incrementAndGet()));
        this.probes = Executors.newCachedThreadPool(r -> daemonThread(r, "nhc-check-" + p.incrementAndGet()));
    }

    static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Runs {@code r} on a worker (a reload asked for by a signal). */
    void execute(Runnable r) {
        workers.execute(r);
    }

    Plan plan() {
        return plan;
    }

    /** The checks of the running plan, in its order. */
    Map<String, ScheduledCheck> checks() {
        return checks;
    }

    /** When each check's latest result came in. */
    Map<String, Instant> finishedAt() {
        Map<String, Instant> at = new LinkedHashMap<>();
        checks.forEach((name, c) -> {
            if (c.finishedAt != null) {
                at.put(name, c.finishedAt);
            }
        });
        return at;
    }

    /**
     * Starts the plan's checks: each runs at once, but an {@code every:} check that its saved last
     * run says is not due shows its saved result instead (dcgm.diag every 6h is intrusive).
     */
    void start() {
        install(plan, true);
    }

    /**
     * Runs a reloaded plan's checks from now on: a check that kept its name, probe and interval keeps
     * its timing and its run going; a changed one runs at once (or right after its run going now); a
     * new one at once; a removed one stops.
     */
    void install(Plan next) {
        install(next, false);
    }

    private synchronized void install(Plan next, boolean atStart) {
        Duration interval = next.settings().interval();
        Map<String, ScheduledCheck> old = checks;
        Map<String, ScheduledCheck> now = new LinkedHashMap<>();
        Map<ScheduledCheck, Duration> start = new LinkedHashMap<>();
        for (PlannedCheck c : next.checks()) {
            Duration every = c.interval(interval);
            ScheduledCheck s = old.get(c.name());
            if (s == null) {
                s = new ScheduledCheck(new CheckRun(next, c, store, policy, clock, probes), every);
                ScheduledCheck added = s;
                s.unit.afterHungClear(problem -> {
                    listener.log("cleared " + added.name() + " after its hung probe returned" + (problem == null ? "" : "; " + problem));
                    launch(added, false, false);
                });
                start.put(s, Duration.ZERO);
            } else {
                boolean same = s.unit.check().check().use().equals(c.check().use()) && s.every.equals(every);
                if (!same) {
                    s.epoch++;
                    s.every = every;
                    s.cancelNext();
                    if (s.unit.running()) {
                        s.rerun.set(true); // runs again as soon as the run of the old config returns
                        start.put(s, every);
                    } else {
                        start.put(s, Duration.ZERO);
                    }
                } // else: its timer stays as it was; the next run uses the new config
            }
            s.unit.rebind(next, c);
            now.put(c.name(), s);
        }
        for (ScheduledCheck s : old.values()) {
            if (!now.containsKey(s.name())) {
                s.retired = true;
                s.cancelNext();
            }
        }
        plan = next;
        checks = now;
        if (!atStart) {
            listener.changed(null);
        }
        start.forEach((s, delay) -> schedule(s, delay, atStart));
    }

    /** Re-runs the checks whose probe has this tag (e.g. "gpu" on an NVML XID event). */
    void recheckTag(String tag) {
        for (ScheduledCheck s : checks.values()) {
            if (s.unit.check().spec().hasTag(tag)) {
                launch(s, false, false);
            }
        }
    }

    void recheckAll() {
        checks.values().forEach(s -> launch(s, false, false));
    }

    /** {@code bySchedule}: an {@code every:} check that is not due shows its saved result instead of running (after a restart). */
    private void schedule(ScheduledCheck s, Duration delay, boolean bySchedule) {
        if (s.retired || closed) {
            return;
        }
        try {
            s.next = timer.schedule(() -> launch(s, true, bySchedule), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // closing
        }
    }

    /**
     * Starts a run of the check, unless its last probe still hangs (a blocked native call: another
     * would only pile up threads) or a run is going: a scheduled run then waits for its next turn,
     * an asked-for one runs as soon as the current run returns.
     */
    void launch(ScheduledCheck s, boolean scheduled, boolean bySchedule) {
        if (s.retired || closed) {
            return;
        }
        int epoch = s.epoch;
        long started = System.nanoTime();
        CheckRun.Attempt a = s.unit.start(occasion(s, bySchedule));
        if (a == null && !s.unit.hung() && !scheduled) {
            // The run may have returned between the two lines; then this call takes the rerun over itself.
            s.rerun.set(true);
            a = s.unit.start(occasion(s, false));
            if (a == null) {
                return;
            }
            s.rerun.set(false);
        }
        if (a == null) {
            if (scheduled) {
                if (s.unit.hung()) {
                    s.skippedWhileHung.incrementAndGet();
                }
                schedule(s, s.every, false);
            }
            return;
        }
        CheckRun.Attempt run = a;
        try {
            workers.execute(() -> finish(s, run, epoch, scheduled, bySchedule, started));
        } catch (RejectedExecutionException stopping) {
            run.await(); // closing: the probe is abandoned at once (the pool is shut down), the unit freed
        }
    }

    private CheckRun.Occasion occasion(ScheduledCheck s, boolean bySchedule) {
        Duration deadline = plan.settings().deadline();
        return new CheckRun.Occasion(node, hostName, servicesFor(s), System.nanoTime() + deadline.toNanos(), bySchedule);
    }

    private void finish(ScheduledCheck s, CheckRun.Attempt a, int epoch, boolean scheduled, boolean bySchedule, long started) {
        CheckResult r = a.await();
        if (!s.retired && !closed && epoch == s.epoch) {
            s.last = r;
            s.finishedAt = clock.instant();
            s.finishedNanos = System.nanoTime();
            listener.changed(s);
        } // else: a run of a config that has since changed is no answer for the check as it is now
        if (a.cleared() != null) {
            listener.log("cleared " + s.name() + " after its run ended" + (a.cleared().problem() == null ? "" : "; " + a.cleared().problem()));
            s.rerun.set(true); // judged afresh at once, as nhc clear said
        }
        if (scheduled && epoch == s.epoch) {
            schedule(s, nextDelay(s, started, bySchedule), false);
        }
        if (s.rerun.getAndSet(false)) {
            launch(s, false, false);
        }
    }

    /**
     * When a scheduled check runs next: one interval after this run started, on the monotonic clock.
     * Only after a saved result of an {@code every:} check was shown in its place (after a restart)
     * does the saved last run, a wall-clock time, say when it is due.
     */
    private Duration nextDelay(ScheduledCheck s, long startedNanos, boolean bySchedule) {
        Instant now = clock.instant();
        Instant due = bySchedule ? s.unit.nextDue(now) : null;
        if (due != null) {
            Duration d = Duration.between(now, due);
            return d.compareTo(s.every) > 0 ? s.every : d;
        }
        return s.every.minusNanos(System.nanoTime() - startedNanos);
    }

    /**
     * The probes' services; for a check that judges the others' observations (script.js with
     * {@code runsLast}), also their latest ones: run alone, it would otherwise see none.
     */
    private Map<Class<?>, Object> servicesFor(ScheduledCheck s) {
        if (!s.unit.check().spec().runsLast()) {
            return services;
        }
        Map<String, List<Observation>> latest = new LinkedHashMap<>();
        for (ScheduledCheck other : checks.values()) {
            CheckResult r = other.last;
            if (other != s && r != null) {
                latest.put(other.name(), r.observations());
            }
        }
        Map<String, List<Observation>> prior = Map.copyOf(latest);
        Map<Class<?>, Object> out = new HashMap<>(services);
        out.put(PriorObservations.class, (PriorObservations) () -> prior);
        return out;
    }

    /**
     * {@code nhc clear CHECK...}: each unit forgets what its check remembers, now or when its run
     * (or hung probe) ends, and the check runs again at once. Returns the answer's lines, or null
     * when a name is not a check of the running config (nothing is cleared then).
     */
    String clear(List<String> names) {
        Map<String, ScheduledCheck> now = checks;
        for (String name : names) {
            if (!now.containsKey(name)) {
                return null;
            }
        }
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            ScheduledCheck s = now.get(name);
            CheckRun.Cleared c = s.unit.clear();
            switch (c.when()) {
                case NOW, BY_RUN_JUST_ENDED -> {
                    out.append("cleared ").append(name).append(c.when() == CheckRun.ClearTime.NOW ? " (the daemon runs it again now)\n"
                            : " (its run that just ended did; the daemon runs it again now)\n");
                    if (c.problem() != null) {
                        out.append(c.problem()).append('\n');
                    }
                    launch(s, false, false);
                }
                case AFTER_RUN -> out.append(name).append(" is running now: cleared when that run ends, then run again\n");
                case AFTER_HANG -> out.append(name).append(": its probe still hangs; cleared when it returns, then run again\n");
            }
        }
        return out.toString();
    }

    /**
     * Why the schedule is behind (a check's latest result older than two of its intervals), or null.
     * {@code notYet}: a check that has not run yet counts (not for /healthz: every check starts so).
     * A check whose probe is still hung is not run again, so its timeout result never gets younger;
     * it is still the current answer (the probe hangs now), not a stale one.
     */
    String behind(boolean notYet) {
        long now = System.nanoTime();
        for (ScheduledCheck s : checks.values()) {
            if (s.finishedAt == null) {
                if (notYet) {
                    return "check " + s.name() + " has not run yet";
                }
                continue;
            }
            if (s.stillHung()) {
                continue;
            }
            Duration age = Duration.ofNanos(now - s.finishedNanos);
            if (age.compareTo(s.every.multipliedBy(2)) > 0) {
                return "check " + s.name() + " last finished " + age.toSeconds() + "s ago, more than two of its intervals";
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed = true;
        checks.values().forEach(s -> s.retired = true);
        timer.shutdownNow();
        workers.shutdownNow();
        probes.shutdownNow();
    }

    /** A periodic task on the daemon's timer; null when it is stopping. */
    ScheduledFuture<?> every(Duration interval, Runnable task) {
        try {
            return timer.scheduleWithFixedDelay(task, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            return null;
        }
    }
}
