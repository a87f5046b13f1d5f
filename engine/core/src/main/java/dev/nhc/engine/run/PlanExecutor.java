package dev.nhc.engine.run;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.VerdictJson;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.ProbeResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Executes a {@link Plan}: the one way checks run, for {@code nhc run}, {@code nhc replay} and the
 * daemon. All due checks run in parallel, each under its own timeout, all within the run's
 * deadline. A probe that does not return in time is abandoned (its thread is a daemon thread that
 * is interrupted and left behind; a blocked native call cannot be stopped any other way) and named
 * in the report. What its observations mean is the check's compiled rules' business, and what the
 * findings count as is the {@link SeverityPolicy}'s.
 */
public final class PlanExecutor {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(PlanExecutor.class);
    }

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Clock clock;
    private final SeverityPolicy policy;

    public PlanExecutor(Clock clock) {
        this(clock, SeverityPolicy.STANDARD);
    }

    public PlanExecutor(Clock clock, SeverityPolicy policy) {
        this.clock = clock;
        this.policy = policy;
    }

    public SeverityPolicy policy() {
        return policy;
    }

    /** A probe's result and how long the probe itself took (not the time its result waited to be collected). */
    private record Timed(ProbeResult result, long millis) {
    }

    public Verdict run(RunRequest req) {
        Instant started = clock.instant();
        Plan plan = req.plan();
        Instant deadline = started.plus(plan.settings().deadline());
        StateSection schedule = req.state().section("schedule");

        Map<String, CheckResult> results = new LinkedHashMap<>();
        List<PlannedCheck> first = new ArrayList<>();
        List<PlannedCheck> last = new ArrayList<>();
        for (PlannedCheck check : plan.checks()) {
            if (!req.only().isEmpty() && !req.only().contains(check.name())) {
                continue;
            }
            results.put(check.name(), null);
            if (!check.check().on().matches(req.node(), req.hostName())) {
                results.put(check.name(), CheckResult.skipped(check.name(), check.check().use(), check.spec().tags(),
                        "not for this host (on: " + check.check().on() + ")"));
            } else if (!req.ignoreSchedule() && !isDue(check, schedule, started)) {
                results.put(check.name(), carriedOver(check, schedule, started));
            } else if (check.spec().runsLast()) {
                last.add(check);
            } else {
                first.add(check);
            }
        }
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "nhc-check-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            Map<Class<?>, Object> services = new HashMap<>(req.services());
            runPhase(first, req, services, deadline, results, schedule, pool);
            if (!last.isEmpty()) {
                Map<String, List<Observation>> prior = new LinkedHashMap<>();
                // A caller that runs checks one at a time (the daemon) hands in the other checks' latest observations.
                if (services.get(PriorObservations.class) instanceof PriorObservations given) {
                    prior.putAll(given.byCheck());
                }
                results.forEach((name, r) -> {
                    if (r != null) {
                        prior.put(name, r.observations());
                    }
                });
                PriorObservations po = () -> prior;
                services.put(PriorObservations.class, po);
                runPhase(last, req, services, deadline, results, schedule, pool);
            }
        } finally {
            pool.shutdownNow();
        }
        long ms = Duration.between(started, clock.instant()).toMillis();
        List<CheckResult> ordered = new ArrayList<>();
        results.values().forEach(r -> {
            if (r != null) {
                ordered.add(r);
            }
        });
        return policy.verdict(req.node(), started, ms, ordered);
    }

    private void runPhase(List<PlannedCheck> checks, RunRequest req, Map<Class<?>, Object> services, Instant deadline,
                          Map<String, CheckResult> results, StateSection schedule, ExecutorService pool) {
        Plan plan = req.plan();
        Map<String, Future<Timed>> futures = new LinkedHashMap<>();
        Map<String, CompletableFuture<Void>> returned = new HashMap<>();
        Map<String, Instant> startedAt = new HashMap<>();
        Map<String, Instant> dueBy = new HashMap<>();
        Map<String, Object> settings = plan.settings().values().asMap();
        for (PlannedCheck check : checks) {
            Instant now = clock.instant();
            Instant checkDeadline = min(now.plus(check.timeout()), deadline);
            RunContext ctx = new RunContext(check.name(), check.check().with(), plan.settings().root(),
                    req.state(), StateStore.CHECK_PREFIX + check.name(), checkDeadline, Duration.between(now, checkDeadline), req.node(),
                    settings, clock, services, check.rules().fieldsRead());
            startedAt.put(check.name(), now);
            dueBy.put(check.name(), checkDeadline);
            CompletableFuture<Void> done = new CompletableFuture<>();
            returned.put(check.name(), done);
            futures.put(check.name(), pool.submit(() -> {
                try {
                    return probeAndSave(check, ctx);
                } finally {
                    done.complete(null);
                }
            }));
        }
        for (PlannedCheck check : checks) {
            Future<Timed> f = futures.get(check.name());
            Instant start = startedAt.get(check.name());
            Instant limit = dueBy.get(check.name());
            CheckResult r;
            boolean carried = false;
            try {
                long waitNanos = Math.max(0, Duration.between(clock.instant(), limit).toNanos());
                Timed t = f.get(waitNanos, TimeUnit.NANOSECONDS);
                carried = t.result().carriedOver();
                r = judge(check, t.result(), req, t.millis());
            } catch (TimeoutException | CancellationException e) {
                f.cancel(true);
                req.abandoned().probe(check.name(), returned.get(check.name()));
                Duration allowed = Duration.between(start, limit);
                boolean byDeadline = !limit.isBefore(deadline);
                String why = "probe " + check.check().use() + " did not finish within " + human(allowed)
                        + (byDeadline ? " (the run's deadline)" : "") + "; abandoned";
                r = undecided(check, CheckStatus.TIMED_OUT, List.of(policy.timedOut(check, why)), List.of(), elapsed(start), why, req);
                log().warn("check {}: {}", check.name(), why);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                String why = "cannot run: " + describe(cause);
                log().debug("check {} failed", check.name(), cause);
                r = undecided(check, CheckStatus.ERROR, List.of(policy.couldNotRun(check, why)), List.of(), elapsed(start), why, req);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                r = undecided(check, CheckStatus.ERROR, List.of(policy.couldNotRun(check, "interrupted")), List.of(), elapsed(start),
                        "interrupted", req);
            }
            results.put(check.name(), r);
            if (check.every() != null && r.status() != CheckStatus.SKIPPED && !carried) {
                remember(check, r, schedule);
            }
        }
    }

    /** The probe, then its state written from the same thread while other checks still run. */
    private static Timed probeAndSave(PlannedCheck check, RunContext ctx) throws Exception {
        long t0 = System.nanoTime();
        try {
            ProbeResult r = check.probe().probe(ctx);
            return new Timed(r, (System.nanoTime() - t0) / 1_000_000);
        } finally {
            ctx.saveState();
        }
    }

    private CheckResult judge(PlannedCheck check, ProbeResult pr, RunRequest req, long ms) {
        if (pr.skipped() != null) {
            return new CheckResult(check.name(), check.check().use(), check.spec().tags(), CheckStatus.SKIPPED, Severity.PASS, ms,
                    List.of(), List.of(), pr.skipped());
        }
        List<Finding> raw = new ArrayList<>();
        List<Observation> readable = new ArrayList<>();
        for (Observation o : pr.observations()) {
            if (o.readable()) {
                readable.add(o);
            } else {
                raw.add(policy.unreadable(check, o));
            }
        }
        try {
            raw.addAll(check.rules().judge(readable, check.name()));
        } catch (RuntimeException e) {
            log().debug("rules of check {} failed", check.name(), e);
            raw.add(policy.couldNotRun(check, "cannot judge: " + describe(e)));
            return undecided(check, CheckStatus.COMPLETED, raw, pr.observations(), ms, null, req);
        }
        return result(check, CheckStatus.COMPLETED, raw, pr.observations(), ms, null, req);
    }

    private CheckResult result(PlannedCheck check, CheckStatus status, List<Finding> raw, List<Observation> observations,
                               long ms, String note, RunRequest req) {
        StateSection memory = req.state().section("rules." + check.name());
        return checkResult(check, status, policy.settle(check.check(), raw, memory, req.plan().settings().onUnknown()), observations, ms, note);
    }

    /** A check that saw nothing this run (timed out, threw, rules failed): its for: streaks are not touched. */
    private CheckResult undecided(PlannedCheck check, CheckStatus status, List<Finding> raw, List<Observation> observations,
                                  long ms, String note, RunRequest req) {
        List<Finding> settled = policy.settleUndecided(check.check(), raw, req.plan().settings().onUnknown());
        return checkResult(check, status, settled, observations, ms, note);
    }

    private CheckResult checkResult(PlannedCheck check, CheckStatus status, List<Finding> settled, List<Observation> observations,
                                    long ms, String note) {
        return new CheckResult(check.name(), check.check().use(), check.spec().tags(), status, policy.ofFindings(settled), ms,
                settled, observations, note);
    }

    private static boolean isDue(PlannedCheck check, StateSection schedule, Instant now) {
        if (check.every() == null) {
            return true;
        }
        long last = schedule.getLong("last_run." + check.name(), Long.MIN_VALUE);
        if (last == Long.MIN_VALUE || last > now.toEpochMilli()) {
            return true; // never run, or a time from the future (a clock step, an edited file): run now
        }
        return !Instant.ofEpochMilli(last).plus(check.every()).isAfter(now);
    }

    /** Saves what an {@code every:} check found, so runs in between report it until it is due again. */
    private void remember(PlannedCheck check, CheckResult r, StateSection schedule) {
        schedule.put("last_run." + check.name(), clock.millis());
        List<Map<String, Object>> saved = new ArrayList<>();
        for (Finding f : r.findings()) {
            // The report's form, without what a carried-over finding does not show (observed values) and empty keys.
            Map<String, Object> m = JsonReport.finding(f);
            m.remove("observed");
            m.values().removeIf(java.util.Objects::isNull);
            saved.add(m);
        }
        schedule.put("last_findings." + check.name(), saved);
    }

    private CheckResult carriedOver(PlannedCheck check, StateSection schedule, Instant now) {
        Instant last = Instant.ofEpochMilli(schedule.getLong("last_run." + check.name(), 0));
        Instant next = last.plus(check.every());
        List<Finding> findings = new ArrayList<>();
        Object saved = schedule.get("last_findings." + check.name());
        if (saved instanceof List<?> list) {
            for (Object o : list) {
                Finding f = VerdictJson.finding(o, check.name());
                if (f != null) { // else a hand-edited or older state entry: dropped; the check runs again when due
                    findings.add(f.withCheck(check.name()));
                }
            }
        }
        String note = "not due (every " + human(check.every()) + "); last run " + human(Duration.between(last, now))
                + " ago, next in " + human(Duration.between(now, next)) + "; showing its last result";
        return new CheckResult(check.name(), check.check().use(), check.spec().tags(), CheckStatus.COMPLETED, policy.ofFindings(findings),
                0, findings, List.of(), note);
    }

    private long elapsed(Instant start) {
        return Duration.between(start, clock.instant()).toMillis();
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /** How a run that threw is described in its finding ("cannot run: " + this); the daemon words its own the same. */
    public static String describe(Throwable t) {
        String m = t.getMessage();
        if (t instanceof NoClassDefFoundError || t instanceof UnsatisfiedLinkError) {
            return t.getClass().getSimpleName() + ": " + m;
        }
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m.replace('\n', ' ');
    }

    public static String human(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = Math.round(ms / 1000.0);
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m";
        }
        if (s < 172800) {
            return (s / 3600) + "h" + ((s % 3600) / 60 > 0 ? (s % 3600) / 60 + "m" : "");
        }
        return (s / 86400) + "d";
    }
}
