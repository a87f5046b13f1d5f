package dev.nhc.engine.run;

import dev.nhc.engine.check.CheckRun;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Observation;
import dev.nhc.model.Verdict;
import dev.nhc.probe.PriorObservations;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a {@link Plan} once, for {@code nhc run} and {@code nhc replay}: every check's
 * {@link CheckRun} started at once (each probe on its own thread, under its time limit), all within
 * the run's deadline, then their results combined into the verdict by the {@link SeverityPolicy}.
 * Checks whose probe judges the others' observations ({@code runsLast}, script.js) start after the
 * rest have their results. What a check's run is — due or not, abandoned, judged, settled — is
 * its unit's business; the daemon starts the same units on its timers.
 */
public final class PlanExecutor {
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

    public Clock clock() {
        return clock;
    }

    public Verdict run(RunRequest req) {
        Instant started = clock.instant();
        long t0 = System.nanoTime();
        Plan plan = req.plan();
        long deadline = t0 + plan.settings().deadline().toNanos();
        // Daemon threads: a probe abandoned at its limit must not keep the process from exiting.
        ExecutorService probes = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "nhc-check-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Map<String, CheckResult> results = new LinkedHashMap<>();
        try {
            List<CheckRun> first = new ArrayList<>();
            List<CheckRun> last = new ArrayList<>();
            for (PlannedCheck check : plan.checks()) {
                if (!req.only().isEmpty() && !req.only().contains(check.name())) {
                    continue;
                }
                results.put(check.name(), null); // the report keeps the config's order
                CheckRun unit = new CheckRun(plan, check, req.state(), policy, clock, probes);
                (check.spec().runsLast() ? last : first).add(unit);
            }
            boolean bySchedule = !req.ignoreSchedule();
            runAll(first, new CheckRun.Occasion(req.node(), req.hostName(), req.services(), deadline, bySchedule), results);
            if (!last.isEmpty()) {
                Map<String, List<Observation>> prior = new LinkedHashMap<>();
                if (req.services().get(PriorObservations.class) instanceof PriorObservations given) {
                    prior.putAll(given.byCheck());
                }
                results.forEach((name, r) -> {
                    if (r != null) {
                        prior.put(name, r.observations());
                    }
                });
                Map<Class<?>, Object> services = new HashMap<>(req.services());
                services.put(PriorObservations.class, (PriorObservations) () -> prior);
                runAll(last, new CheckRun.Occasion(req.node(), req.hostName(), services, deadline, bySchedule), results);
            }
        } finally {
            probes.shutdownNow();
        }
        List<CheckResult> ordered = new ArrayList<>(results.values());
        return policy.verdict(req.node(), started, (System.nanoTime() - t0) / 1_000_000, ordered);
    }

    /** Every probe starts before any is waited for: they run in parallel, each within its own limit. */
    private static void runAll(List<CheckRun> units, CheckRun.Occasion occasion, Map<String, CheckResult> results) {
        List<CheckRun.Attempt> attempts = new ArrayList<>();
        for (CheckRun u : units) {
            attempts.add(u.start(occasion)); // fresh units: never refused
        }
        for (CheckRun.Attempt a : attempts) {
            results.put(a.check().name(), a.await());
        }
    }
}
