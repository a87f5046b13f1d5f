package dev.nhc.engine.run;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanExecutorTest {
    @TempDir
    Path dir;

    private final List<Probe> probes = new ArrayList<>();

    private Plan config(String checks) throws Exception {
        String yaml = "nhc: 1\nsettings: { deadline: 3s, check_timeout: 1s, state_dir: " + dir + " }\nchecks:\n" + checks;
        return new ConfigLoader(new ProbeRegistry(probes), new PassThroughRules(), List.of()).enforceOwnership(false)
                .parse("test.yaml", yaml, null);
    }

    private Verdict run(Plan c) {
        return runner().run(RunRequest.of(c, "gpu-001", new StateStore(dir)));
    }

    private PlanExecutor runner() {
        return new PlanExecutor(Clock.systemUTC());
    }

    private static CheckResult check(Verdict v, String name) {
        return v.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** What a probe saw, which PassThroughRules judges as {@code severity} with this message. */
    private static ProbeResult seen(Entity e, Severity severity, String message) {
        return ProbeResult.of(Observation.of(e).put("severity", severity.label()).put("message", message).build());
    }

    /** A probe that ignores interrupts, like a thread blocked in a native NVML call. */
    private static ProbeResult hangForever() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                // keeps hanging, as a blocked native call would
            }
        }
    }

    @Test
    void aProbeLearnsWhichFieldsTheEvaluatorSaysTheCheckReads() throws Exception {
        probes.add(new ScriptedProbe("test.fields", false, ctx -> ProbeResult.of(Observation.of(Entity.NODE)
                .put("value", ctx.fieldWanted("value") ? 1 : 0)
                .put("used_percent", ctx.fieldWanted("used_percent") ? 1 : 0).build())));
        PassThroughRules readsValueOnly = new PassThroughRules() {
            @Override
            public Set<String> fieldsRead(dev.nhc.engine.config.CheckConfig check, ProbeSpec spec) {
                return Set.of("value");
            }
        };
        Plan planned = new ConfigLoader(new ProbeRegistry(probes), readsValueOnly, List.of()).enforceOwnership(false)
                .parse("test.yaml", "nhc: 1\nsettings: { deadline: 3s, check_timeout: 1s, state_dir: " + dir + " }\nchecks:\n"
                        + "  - { name: f, use: test.fields }\n", null);
        Verdict v = runner().run(RunRequest.of(planned, "gpu-001", new StateStore(dir)));
        Observation o = check(v, "f").observations().get(0);
        assertEquals(1, ((Number) o.get("value")).intValue());
        assertEquals(0, ((Number) o.get("used_percent")).intValue());
    }

    @Test
    void aHungProbeIsAbandonedAtItsTimeoutAndNamedWhileTheOthersFinish() throws Exception {
        probes.add(new ScriptedProbe("test.hang", false, ctx -> hangForever()));
        probes.add(new ScriptedProbe("test.ok", false, ctx -> ProbeResult.of(Observation.of(Entity.NODE).put("value", 1).build())));
        Plan c = config("  - { name: stuck, use: test.hang }\n  - { name: fine, use: test.ok }\n");
        long t0 = System.nanoTime();
        Verdict v = run(c);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 3000 + 2000, "the run ends by its deadline; took " + ms + " ms");
        CheckResult stuck = check(v, "stuck");
        assertEquals(CheckStatus.TIMED_OUT, stuck.status());
        assertEquals(Severity.UNKNOWN, stuck.severity(), "a hung host probe cannot decide");
        assertTrue(stuck.findings().get(0).message().contains("probe test.hang did not finish within 1s"), stuck.findings().get(0).message());
        assertEquals(CheckStatus.COMPLETED, check(v, "fine").status());
        assertEquals(Severity.PASS, check(v, "fine").severity());
    }

    @Test
    void aHungGpuProbeFailsTheCheckAndTheRunDeadlineBoundsLongTimeouts() throws Exception {
        probes.add(new ScriptedProbe("test.gpu", true, ctx -> hangForever()));
        Plan c = config("  - { name: gpu-ecc, use: test.gpu, timeout: 60s }\n");
        long t0 = System.nanoTime();
        Verdict v = run(c);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 3000 + 2000, "the 3 s deadline beats the 60 s timeout; took " + ms + " ms");
        assertEquals(Severity.FAIL, v.severity());
        Finding f = check(v, "gpu-ecc").findings().get(0);
        assertTrue(f.message().contains("(the run's deadline)"), f.message());
    }

    @Test
    void checksRunInParallel() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        ScriptedProbe.Behaviour meet = ctx -> {
            both.countDown();
            // Each waits for the other: only parallel execution lets both pass.
            return both.await(2, TimeUnit.SECONDS) ? ProbeResult.of(Observation.of(Entity.NODE).put("value", 1).build())
                    : seen(Entity.NODE, Severity.FAIL, "ran alone");
        };
        probes.add(new ScriptedProbe("test.a", false, meet));
        probes.add(new ScriptedProbe("test.b", false, meet));
        Verdict v = run(config("  - { name: a, use: test.a, timeout: 3s }\n  - { name: b, use: test.b, timeout: 3s }\n"));
        assertEquals(Severity.PASS, v.severity(), v.findings().toString());
    }

    @Test
    void anExceptionIsUnknownWithItsMessageAndOnUnknownMapsIt() throws Exception {
        probes.add(new ScriptedProbe("test.broken", false, ctx -> {
            throw new java.io.IOException("cannot read /proc/meminfo: No such file or directory");
        }));
        Verdict v = run(config("  - { name: mem, use: test.broken }\n  - { name: mem-strict, use: test.broken, on_unknown: fail }\n"));
        CheckResult mem = check(v, "mem");
        assertEquals(CheckStatus.ERROR, mem.status());
        assertEquals(Severity.UNKNOWN, mem.severity());
        assertTrue(mem.findings().get(0).message().contains("/proc/meminfo"), mem.findings().get(0).message());
        assertEquals(Severity.FAIL, check(v, "mem-strict").severity());
        assertEquals(Severity.FAIL, v.severity());
    }

    @Test
    void checksForOtherHostsAreSkippedAndDoNotCount() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        probes.add(new ScriptedProbe("test.fail", false, ctx -> {
            calls.incrementAndGet();
            return seen(Entity.NODE, Severity.FAIL, "bad");
        }));
        Verdict v = run(config("  - { name: login-only, use: test.fail, on: \"login*\" }\n"));
        assertEquals(CheckStatus.SKIPPED, check(v, "login-only").status());
        assertEquals(Severity.PASS, v.severity());
        assertEquals(0, calls.get());
    }

    @Test
    void everyCarriesTheLastResultUntilDueAndOnlyRunsItAnyway() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        probes.add(new ScriptedProbe("test.diag", false, ctx -> {
            calls.incrementAndGet();
            return seen(Entity.gpu(0, null), Severity.FAIL, "pcie test failed");
        }));
        Plan c = config("  - { name: diag, use: test.diag, every: 6h }\n");
        StateStore state = new StateStore(dir);
        Verdict first = runner().run(RunRequest.of(c, "gpu-001", state));
        state.flush();
        Verdict second = runner().run(RunRequest.of(c, "gpu-001", new StateStore(dir)));
        assertEquals(1, calls.get(), "not due: not run again");
        assertEquals(Severity.FAIL, first.severity());
        assertEquals(Severity.FAIL, second.severity(), "the last result is still reported");
        assertTrue(check(second, "diag").note().startsWith("not due (every 6h)"), check(second, "diag").note());
        assertEquals("pcie test failed", second.findings().get(0).message());
        assertEquals(Entity.gpu(0, null), second.findings().get(0).entity(), "the entity comes back whole, not as a label");
        assertEquals("diag", second.findings().get(0).check());
        runner().run(RunRequest.of(c, "gpu-001", new StateStore(dir)).withOnly(Set.of("diag")));
        assertEquals(2, calls.get(), "--only runs it even when not due");
    }

    @Test
    void aCarriedOverResultDoesNotCountAsARunOfAnEveryCheck() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        probes.add(new ScriptedProbe("test.busy", false, ctx -> {
            calls.incrementAndGet();
            return seen(Entity.gpu(0, null), Severity.FAIL, "from an earlier diag").asCarriedOver();
        }));
        Plan c = config("  - { name: diag, use: test.busy, every: 6h }\n");
        StateStore state = new StateStore(dir);
        Verdict first = runner().run(RunRequest.of(c, "gpu-001", state));
        state.flush();
        Verdict second = runner().run(RunRequest.of(c, "gpu-001", new StateStore(dir)));
        assertEquals(Severity.FAIL, first.severity());
        assertEquals(Severity.FAIL, second.severity());
        assertEquals(2, calls.get(), "still due: the probe is asked again until it really runs");
    }

    @Test
    void runsLastProbesSeeTheOthersObservations() throws Exception {
        probes.add(new ScriptedProbe("test.temp", false, ctx -> ProbeResult.of(Observation.of(Entity.gpu(0, null)).put("value", 91).build())));
        ProbeSpec lastSpec = ProbeSpec.builder("test.js", "judges others").runsLast().build();
        probes.add(new ScriptedProbe(lastSpec, ctx -> {
            PriorObservations prior = ctx.service(PriorObservations.class).orElseThrow();
            Object temp = prior.byCheck().get("temp").get(0).get("value");
            return seen(Entity.gpu(0, null), Severity.WARN, "temperature " + temp);
        }));
        Verdict v = run(config("  - { name: combined, use: test.js }\n  - { name: temp, use: test.temp }\n"));
        assertEquals("temperature 91", check(v, "combined").findings().get(0).message());
        assertEquals(List.of("combined", "temp"), v.checks().stream().map(CheckResult::name).toList(), "report keeps config order");
    }

    @Test
    void probesReadTheSystemUnderTheConfiguredRoot() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("root/proc"));
        java.nio.file.Files.writeString(dir.resolve("root/proc/loadavg"), "0.5 0.4 0.3 1/100 42\n");
        probes.add(new ScriptedProbe("test.read", false, ctx -> ProbeResult.of(Observation.of(Entity.NODE)
                .put("value", java.nio.file.Files.readString(ctx.sys("/proc/loadavg")).length()).build())));
        String yaml = "nhc: 1\nsettings: { root: " + dir.resolve("root") + ", state_dir: " + dir + " }\nchecks:\n  - { name: r, use: test.read }\n";
        Plan c = new ConfigLoader(new ProbeRegistry(probes), new PassThroughRules(), List.of()).parse("t.yaml", yaml, null);
        Verdict v = run(c);
        assertEquals(21L, check(v, "r").observations().get(0).get("value"));
    }

    @Test
    void theLosingRunSaysWhoHoldsTheLockAndForHowLong() {
        assertEquals("pid 4242, started 12 s ago", RunLock.describe("pid 4242 started 1000000", 1_012_400));
        assertEquals("pid 7 since 2026-11-22T04:00:00Z", RunLock.describe("pid 7 since 2026-11-22T04:00:00Z", 0), "an older nhc's lock text");
        assertEquals("another nhc run", RunLock.describe("", 0));
    }
}
