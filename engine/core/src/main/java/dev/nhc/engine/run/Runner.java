package dev.nhc.engine.run;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.eval.Evaluator;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the checks of a config: all in parallel, each under its own timeout, all within the run's
 * deadline. A probe that does not return in time is abandoned (its thread is a daemon thread that
 * is interrupted and left behind; a blocked native call cannot be stopped any other way) and named
 * in the report: FAIL for probes whose spec says a hang means sickness (GPU), UNKNOWN otherwise.
 */
public final class Runner {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(Runner.class);
    }
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ProbeRegistry registry;
    private final Evaluator evaluator;
    private final Clock clock;

    public Runner(ProbeRegistry registry, Evaluator evaluator, Clock clock) {
        this.registry = registry;
        this.evaluator = evaluator;
        this.clock = clock;
    }

    public dev.nhc.model.Verdict run(RunRequest req) {
        Instant started = clock.instant();
        Config config = req.config();
        Instant deadline = started.plus(config.settings().deadline());
        StateSection schedule = req.state().section("schedule");

        Map<String, CheckResult> results = new LinkedHashMap<>();
        List<CheckConfig> first = new ArrayList<>();
        List<CheckConfig> last = new ArrayList<>();
        for (CheckConfig check : config.checks()) {
            results.put(check.name(), null);
            if (!req.only().isEmpty() && !req.only().contains(check.name())) {
                results.remove(check.name());
                continue;
            }
            Probe probe = registry.find(check.use()).orElseThrow();
            if (!check.on().matches(req.node())) {
                results.put(check.name(), CheckResult.skipped(check.name(), check.use(), "not for this host (on: " + check.on() + ")"));
            } else if (!req.ignoreSchedule() && !isDue(check, schedule, started)) {
                results.put(check.name(), carriedOver(check, schedule, started));
            } else if (probe.spec().runsLast()) {
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
        return new dev.nhc.model.Verdict(req.node(), started, ms, ordered);
    }

    private void runPhase(List<CheckConfig> checks, RunRequest req, Map<Class<?>, Object> services, Instant deadline,
                          Map<String, CheckResult> results, StateSection schedule, ExecutorService pool) {
        Config config = req.config();
        Map<String, Future<ProbeResult>> futures = new LinkedHashMap<>();
        Map<String, Instant> startedAt = new HashMap<>();
        Map<String, Instant> dueBy = new HashMap<>();
        java.util.Set<String> carried = new java.util.HashSet<>();
        Map<String, Object> settings = config.settings().values().asMap();
        for (CheckConfig check : checks) {
            Probe probe = registry.find(check.use()).orElseThrow();
            Instant now = clock.instant();
            Instant checkDeadline = min(now.plus(check.timeoutOr(config.settings().checkTimeout())), deadline);
            RunContext ctx = new RunContext(check.name(), check.with(), config.settings().root(),
                    req.state(), "check." + check.name(), checkDeadline, req.node(), settings, clock, services,
                    evaluator.fieldsRead(check, probe.spec()));
            startedAt.put(check.name(), now);
            dueBy.put(check.name(), checkDeadline);
            futures.put(check.name(), pool.submit(() -> probeAndSave(probe, ctx)));
        }
        for (CheckConfig check : checks) {
            Probe probe = registry.find(check.use()).orElseThrow();
            Future<ProbeResult> f = futures.get(check.name());
            Instant start = startedAt.get(check.name());
            Instant limit = dueBy.get(check.name());
            CheckResult r;
            try {
                long waitNanos = Math.max(0, Duration.between(clock.instant(), limit).toNanos());
                ProbeResult pr = f.get(waitNanos, TimeUnit.NANOSECONDS);
                if (pr.carriedOver()) {
                    carried.add(check.name());
                }
                r = judge(check, probe, pr, req, elapsed(start));
            } catch (TimeoutException | CancellationException e) {
                f.cancel(true);
                Duration allowed = Duration.between(start, limit);
                boolean byDeadline = !limit.isBefore(deadline);
                String why = "probe " + check.use() + " did not finish within " + human(allowed)
                        + (byDeadline ? " (the run's deadline)" : "") + "; abandoned";
                Severity s = probe.spec().timeoutFails() ? Severity.FAIL : Severity.UNKNOWN;
                Finding finding = new Finding(check.name(), "node", s, why,
                        probe.spec().timeoutFails() ? Remedy.REBOOT : Remedy.NONE, check.slurmState(), Map.of());
                r = finish(check, CheckStatus.TIMED_OUT, List.of(finding), List.of(), elapsed(start), why, req);
                log().warn("check {}: {}", check.name(), why);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                String why = "cannot run: " + describe(cause);
                log().debug("check {} failed", check.name(), cause);
                Finding finding = new Finding(check.name(), "node", Severity.UNKNOWN, why, Remedy.NONE, null, Map.of());
                r = finish(check, CheckStatus.ERROR, List.of(finding), List.of(), elapsed(start), why, req);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Finding finding = new Finding(check.name(), "node", Severity.UNKNOWN, "interrupted", Remedy.NONE, null, Map.of());
                r = finish(check, CheckStatus.ERROR, List.of(finding), List.of(), elapsed(start), "interrupted", req);
            }
            results.put(check.name(), r);
            if (check.every() != null && r.status() != CheckStatus.SKIPPED && !carried.contains(check.name())) {
                remember(check, r, schedule);
            }
        }
    }

    /** The probe, then its state written from the same thread while other checks still run. */
    private static ProbeResult probeAndSave(Probe probe, RunContext ctx) throws Exception {
        try {
            return probe.probe(ctx);
        } finally {
            ctx.saveState();
        }
    }

    private CheckResult judge(CheckConfig check, Probe probe, ProbeResult pr, RunRequest req, long ms) {
        if (pr.skipped() != null) {
            return new CheckResult(check.name(), check.use(), CheckStatus.SKIPPED, Severity.PASS, ms, List.of(), List.of(), pr.skipped());
        }
        StateSection memory = req.state().section("rules." + check.name());
        List<Finding> findings;
        try {
            findings = evaluator.evaluate(check, probe.spec(), pr, memory);
        } catch (RuntimeException e) {
            log().debug("rules of check {} failed", check.name(), e);
            findings = List.of(new Finding(check.name(), "node", Severity.UNKNOWN, "cannot judge: " + describe(e), Remedy.NONE, null, Map.of()));
        }
        return finish(check, CheckStatus.COMPLETED, findings, pr.observations(), ms, null, req);
    }

    private static CheckResult finish(CheckConfig check, CheckStatus status, List<Finding> findings, List<Observation> observations,
                                      long ms, String note, RunRequest req) {
        OnUnknown policy = check.onUnknown() != null ? check.onUnknown() : req.config().settings().onUnknown();
        List<Finding> mapped = new ArrayList<>();
        for (Finding f : findings) {
            Finding g = f.check() == null ? f.withCheck(check.name()) : f;
            mapped.add(g.withSeverity(policy.apply(g.severity())));
        }
        return new CheckResult(check.name(), check.use(), status, CheckResult.worstOf(mapped), ms, mapped, observations, note);
    }

    private static boolean isDue(CheckConfig check, StateSection schedule, Instant now) {
        if (check.every() == null) {
            return true;
        }
        long last = schedule.getLong("last_run." + check.name(), Long.MIN_VALUE);
        return last == Long.MIN_VALUE || !Instant.ofEpochMilli(last).plus(check.every()).isAfter(now);
    }

    /** Saves what an {@code every:} check found, so runs in between report it until it is due again. */
    private static void remember(CheckConfig check, CheckResult r, StateSection schedule) {
        schedule.put("last_run." + check.name(), System.currentTimeMillis());
        List<Map<String, Object>> saved = new ArrayList<>();
        for (Finding f : r.findings()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("entity", f.entity());
            m.put("severity", f.severity().label());
            m.put("message", f.message());
            m.put("remedy", f.remedy().label());
            if (f.slurmState() != null) {
                m.put("slurm_state", f.slurmState().label());
            }
            saved.add(m);
        }
        schedule.put("last_findings." + check.name(), saved);
    }

    private static CheckResult carriedOver(CheckConfig check, StateSection schedule, Instant now) {
        Instant last = Instant.ofEpochMilli(schedule.getLong("last_run." + check.name(), 0));
        Instant next = last.plus(check.every());
        List<Finding> findings = new ArrayList<>();
        Object saved = schedule.get("last_findings." + check.name());
        if (saved instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> m) {
                    try {
                        findings.add(new Finding(check.name(), String.valueOf(m.get("entity")),
                                Severity.parse(String.valueOf(m.get("severity"))), String.valueOf(m.get("message")),
                                Remedy.parse(String.valueOf(m.get("remedy"))),
                                m.get("slurm_state") == null ? null : dev.nhc.model.SlurmState.parse(String.valueOf(m.get("slurm_state"))),
                                Map.of()));
                    } catch (IllegalArgumentException ignored) {
                        // A hand-edited or older state entry: drop it; the check runs again when due.
                    }
                }
            }
        }
        String note = "not due (every " + human(check.every()) + "); last run " + human(Duration.between(last, now))
                + " ago, next in " + human(Duration.between(now, next)) + "; showing its last result";
        return new CheckResult(check.name(), check.use(), CheckStatus.COMPLETED, CheckResult.worstOf(findings), 0, findings, List.of(), note);
    }

    private long elapsed(Instant start) {
        return Duration.between(start, clock.instant()).toMillis();
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    static String describe(Throwable t) {
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
