package dev.nhc.daemon;

import dev.nhc.engine.check.CheckState;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One check's scenario — pass, fail under {@code for: 2}, a hang that means sickness, fail again,
 * an error, {@code nhc clear}, and {@code every:} carrying the last result over — run once through
 * the one-shot executor (a run per step, as {@code nhc run --only} and {@code nhc clear} do) and
 * once through the daemon (its first run, rechecks, a clear through it, and a restart), with the
 * same results step by step. The daemon once built its own timeout result, which passed a hung GPU
 * under {@code for: 3} as "1 of 3" (c9944f4); both now get every result from the check's one unit.
 */
class LifecycleParityTest {
    @TempDir
    Path dir;

    private enum Step { PASS, FAIL, HANG, ERROR }

    private final AtomicReference<Step> step = new AtomicReference<>(Step.PASS);
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger hungReturned = new AtomicInteger();
    private volatile CountDownLatch release = new CountDownLatch(1);
    private final List<Daemon> daemons = new ArrayList<>();

    @AfterEach
    void stop() {
        release.countDown();
        daemons.forEach(Daemon::close);
    }

    private ProbeResult probe() throws Exception {
        runs.incrementAndGet();
        return switch (step.get()) {
            case PASS -> seen("pass", "GPU 0 is fine");
            case FAIL -> seen("fail", "GPU 0 has 2 uncorrectable errors");
            case ERROR -> throw new java.io.IOException("cannot read the GPU: driver not loaded");
            case HANG -> {
                CountDownLatch r = release;
                while (true) { // a blocked native call: an interrupt does not end it
                    try {
                        r.await();
                        break;
                    } catch (InterruptedException ignored) {
                        // still blocked
                    }
                }
                hungReturned.incrementAndGet();
                yield seen("pass", "late");
            }
        };
    }

    private static ProbeResult seen(String severity, String message) {
        return ProbeResult.of(Observation.of(Entity.gpu(0, "0000:3b:00.0")).put("severity", severity).put("message", message).build());
    }

    private Plan plan(Path state) throws Exception {
        ScriptedProbe gpu = new ScriptedProbe("test.gpu", true, ctx -> probe(), "gpu");
        String yaml = "nhc: 1\nsettings:\n  deadline: 5s\n  state_dir: " + state + "\n"
                + "daemon:\n  metrics_listen: 127.0.0.1:0\n  socket: " + dir.resolve("run-" + state.getFileName() + "/nhc.sock") + "\n"
                + "checks:\n  - { name: gpu, use: test.gpu, for: 2, every: 1h, timeout: 400ms }\n";
        Path file = dir.resolve("nhc-" + state.getFileName() + ".yaml");
        Files.writeString(file, yaml);
        return new ConfigLoader(new ProbeRegistry(List.of(gpu)), new PassThroughRules(), List.of(new DaemonSection()))
                .enforceOwnership(false).load(file);
    }

    /** What a result says, without its timing (durations, "last run 12ms ago"). */
    private static String view(CheckResult r) {
        StringBuilder b = new StringBuilder(r.status().label() + " " + r.severity().label());
        for (Finding f : r.findings()) {
            b.append(" | ").append(f.severity().label()).append(' ').append(f.entity().label()).append(": ").append(f.message())
                    .append(" (").append(f.remedy().label()).append(')');
        }
        if (r.note() != null) {
            b.append(" | note: ").append(r.note().replaceAll("\\d+(ms|s|m|h)", "T"));
        }
        return b.toString();
    }

    /** The scenario, each step's result as {@link #view} shows it. */
    private interface Runner {
        String run() throws Exception;

        String clearAndRun() throws Exception;

        String runBySchedule() throws Exception;

        /** The hung probe has returned: wait until its owner knows (the daemon starts no run of a check whose probe hangs). */
        default void hangEnded() {
        }
    }

    private List<String> scenario(Runner r) throws Exception {
        List<String> out = new ArrayList<>();
        step.set(Step.PASS);
        out.add(r.run());
        step.set(Step.FAIL);
        out.add(r.run()); // for: 2: not yet
        step.set(Step.HANG);
        out.add(r.run()); // a hung GPU fails at once, for: notwithstanding
        int returned = hungReturned.get();
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> hungReturned.get() > returned);
        r.hangEnded();
        release = new CountDownLatch(1);
        step.set(Step.FAIL);
        out.add(r.run()); // the hang neither counted nor reset the streak: 2 of 2
        step.set(Step.ERROR);
        out.add(r.run());
        step.set(Step.FAIL);
        out.add(r.clearAndRun()); // the streak forgotten: 1 of 2 again
        out.add(r.runBySchedule()); // every: 1h, not due: the last result carried over
        return out;
    }

    @Test
    void theExecutorAndTheDaemonGiveTheSameResultsStepByStep() throws Exception {
        List<String> oneShot = scenario(new OneShot(dir.resolve("one-shot")));
        runs.set(0);
        List<String> daemon = scenario(new InTheDaemon(dir.resolve("daemon")));
        assertEquals(oneShot, daemon);
        assertTrue(oneShot.get(0).startsWith("completed pass"), oneShot.get(0));
        assertTrue(oneShot.get(1).contains("fail condition met 1 of 2 consecutive runs"), oneShot.get(1));
        assertTrue(oneShot.get(2).startsWith("timed-out fail") && oneShot.get(2).contains("did not finish within 400ms; abandoned (reboot)"),
                oneShot.get(2));
        assertTrue(oneShot.get(3).startsWith("completed fail | fail GPU 0: GPU 0 has 2 uncorrectable errors"), oneShot.get(3));
        assertTrue(oneShot.get(4).startsWith("error unknown") && oneShot.get(4).contains("cannot run: cannot read the GPU"), oneShot.get(4));
        assertTrue(oneShot.get(5).contains("fail condition met 1 of 2 consecutive runs"), oneShot.get(5));
        assertTrue(oneShot.get(6).contains("note: not due (every T); last run T ago, next in T; showing its last result")
                && oneShot.get(6).contains("fail condition met 1 of 2"), oneShot.get(6));
    }

    /** nhc run --only gpu per step, nhc clear gpu, and a plain nhc run: each a run of its own over the same state directory. */
    private final class OneShot implements Runner {
        private final Plan plan;
        private final Path state;

        OneShot(Path state) throws Exception {
            this.state = state;
            this.plan = plan(state);
        }

        private String run(RunRequest req) {
            try (StateStore store = req.state()) {
                CheckResult r = new PlanExecutor(Clock.systemUTC()).run(req).checks().get(0);
                store.flush();
                return view(r);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public String run() {
            return run(RunRequest.of(plan, "node1", new StateStore(state, false)).withOnly(Set.of("gpu")));
        }

        @Override
        public String clearAndRun() throws Exception {
            try (StateStore store = new StateStore(state, false)) {
                new CheckState(store, "gpu").forget(plan.checks().get(0).probe()); // as nhc clear does
            }
            return run();
        }

        @Override
        public String runBySchedule() {
            return run(RunRequest.of(plan, "node1", new StateStore(state, false)));
        }
    }

    /** The daemon's first run, then a recheck per step, a clear through the daemon (which runs the check again), and a restart. */
    private final class InTheDaemon implements Runner {
        private final Path state;
        private Daemon daemon;
        private Instant seen;

        InTheDaemon(Path state) {
            this.state = state;
        }

        private Daemon start() throws Exception {
            Plan p = plan(state);
            Daemon d = new Daemon(() -> p, SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of());
            daemons.add(d);
            seen = null;
            d.start();
            return d;
        }

        /** The result that came in after the last one this runner saw, once the verdict is made of it. */
        private String next() {
            AtomicReference<dev.nhc.model.Verdict> v = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Instant at = daemon.status().finishedAt().get("gpu");
                v.set(daemon.verdict());
                return at != null && !at.equals(seen) && v.get() != null && v.get().started().equals(at);
            });
            seen = v.get().started();
            return view(v.get().checks().get(0));
        }

        @Override
        public String run() throws Exception {
            if (daemon == null) {
                daemon = start();
                return next();
            }
            int before = runs.get();
            daemon.recheckAll();
            await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() > before);
            return next();
        }

        @Override
        public void hangEnded() {
            await().atMost(Duration.ofSeconds(10)).until(() -> !daemon.hung("gpu"));
        }

        @Override
        public String clearAndRun() {
            VerdictSocket.Answer a = daemon.clear(List.of("gpu"));
            assertTrue(a.text().startsWith("cleared gpu (the daemon runs it again now)"), a.text());
            return next();
        }

        @Override
        public String runBySchedule() throws Exception {
            daemon.close();
            daemon = start();
            return next();
        }
    }
}
