package dev.nhc.engine.policy;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ProbeResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code for: N}: a finding counts after N consecutive runs; the count shows while it builds; a pass
 * resets it; a run that saw nothing (an UNKNOWN entity, a probe that threw or hung) neither counts
 * nor resets.
 */
class ForRunsTest {
    private static final Entity GPU0 = Entity.gpu(0, null);
    private static final Entity GPU1 = Entity.gpu(1, null);

    @TempDir
    Path dir;

    private final SeverityPolicy policy = SeverityPolicy.STANDARD;
    private final StateSection memory = StateSection.detached("rules.c");
    /** What the scripted probe does on each run, in order; a hang waits for {@link #release}. */
    private final Deque<ScriptedProbe.Behaviour> runs = new ArrayDeque<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseHungProbes() {
        release.countDown();
    }

    private Plan plan(String checkYaml, boolean timeoutFails) throws Exception {
        ScriptedProbe probe = new ScriptedProbe("test.p", timeoutFails, ctx -> runs.removeFirst().probe(ctx));
        return new ConfigLoader(new ProbeRegistry(List.of(probe)), new PassThroughRules(), List.of()).enforceOwnership(false)
                .parse("t.yaml", "nhc: 1\nsettings: { deadline: 5s, state_dir: " + dir + " }\nchecks:\n  - { name: c, use: test.p"
                        + checkYaml + " }\n", null);
    }

    private CheckConfig forThree() throws Exception {
        return plan(", for: 3", false).config().checks().get(0);
    }

    /** What the rules would make of GPU temperature t: FAIL over 90, WARN over 80, else PASS. */
    private static Finding temp(Entity gpu, long t) {
        Severity s = t > 90 ? Severity.FAIL : t > 80 ? Severity.WARN : Severity.PASS;
        String message = gpu.label() + ": temp " + t + "C" + (s == Severity.FAIL ? " > 90C" : s == Severity.WARN ? " > 80C" : "");
        return new Finding("c", gpu, s, message, s == Severity.FAIL ? Remedy.RESET_GPU : Remedy.NONE,
                s == Severity.FAIL ? SlurmState.FAIL : null, Map.of("temp", t));
    }

    private List<Finding> settle(CheckConfig c, Finding... raw) {
        return policy.settle(c, List.of(raw), memory, OnUnknown.IGNORE);
    }

    private Finding run(CheckConfig c, long t) {
        List<Finding> out = settle(c, temp(GPU0, t));
        assertEquals(1, out.size());
        return out.get(0);
    }

    @Test
    void failCountsOnlyAfterThreeConsecutiveRuns() throws Exception {
        CheckConfig c = forThree();
        Finding first = run(c, 95);
        assertEquals(Severity.PASS, first.severity());
        assertEquals("fail condition met 1 of 3 consecutive runs: GPU 0: temp 95C > 90C", first.message());
        assertEquals(Remedy.NONE, first.remedy());
        assertNull(first.slurmState());
        assertEquals(95L, first.observed().get("temp"), "the building finding still shows what was seen");

        Finding second = run(c, 96);
        assertEquals(Severity.PASS, second.severity());
        assertTrue(second.message().startsWith("fail condition met 2 of 3 consecutive runs: "), second.message());

        Finding third = run(c, 97);
        assertEquals(Severity.FAIL, third.severity());
        assertEquals("GPU 0: temp 97C > 90C", third.message());
        assertEquals(SlurmState.FAIL, third.slurmState());
        assertEquals(Remedy.RESET_GPU, third.remedy());
        assertEquals(Severity.FAIL, run(c, 97).severity(), "stays FAIL while the condition holds");
    }

    /** Issue 17 item 3: a lost streak started again would pass a failing node for two runs, and resume it. */
    @Test
    void streaksLostWithTheStateCountAsMetAndAreKeptAgainFromThere() throws Exception {
        CheckConfig c = forThree();
        run(c, 95);
        run(c, 95);
        assertEquals(Severity.FAIL, run(c, 95).severity());
        memory.clear();
        memory.put(StateSection.LOST_KEY, "could not read rules.c.json (is empty) or rules.c.json.prev (is empty)");
        assertEquals(Severity.FAIL, run(c, 96).severity(), "the run after the loss");
        assertNull(memory.lostBecause(), "the streaks are whole again");
        assertEquals(Severity.FAIL, run(c, 96).severity());
        memory.put(StateSection.LOST_KEY, "lost again");
        assertEquals(Severity.PASS, run(c, 20).severity(), "a pass is a pass");
        assertEquals(Severity.PASS, run(c, 95).severity(), "and the next fault builds from 1");
    }

    @Test
    void aPassResetsTheCount() throws Exception {
        CheckConfig c = forThree();
        run(c, 95);
        run(c, 95);
        Finding ok = run(c, 20);
        assertEquals(Severity.PASS, ok.severity());
        assertEquals("GPU 0: temp 20C", ok.message());
        assertTrue(memory.snapshot().isEmpty(), "a pass forgets the entity");
        assertEquals("fail condition met 1 of 3 consecutive runs: GPU 0: temp 95C > 90C", run(c, 95).message());
        run(c, 95);
        assertEquals(Severity.FAIL, run(c, 95).severity());
        assertEquals(Severity.PASS, run(c, 20).severity());
        assertEquals(Severity.PASS, run(c, 95).severity(), "after a pass, it builds again from 1");
    }

    @Test
    void warningsCountTowardsWarnAndAFailBuildingOnThemIsReportedAsWarn() throws Exception {
        CheckConfig c = forThree();
        assertEquals("warn condition met 1 of 3 consecutive runs: GPU 0: temp 85C > 80C", run(c, 85).message());
        run(c, 85);
        assertEquals(Severity.WARN, run(c, 85).severity());
        Finding building = run(c, 95);
        assertEquals(Severity.WARN, building.severity(), "three runs at warn or worse: at least WARN");
        assertEquals("fail condition met 1 of 3 consecutive runs: GPU 0: temp 95C > 90C", building.message());
        assertNull(building.slurmState());
        run(c, 95);
        assertEquals(Severity.FAIL, run(c, 95).severity());
        assertEquals(Severity.WARN, run(c, 85).severity(), "the warn streak was not broken by the fails");
    }

    @Test
    void entitiesCountSeparatelyAndThoseNoLongerSeenAreForgotten() throws Exception {
        CheckConfig c = forThree();
        settle(c, temp(GPU0, 95), temp(GPU1, 95));
        settle(c, temp(GPU0, 95), temp(GPU1, 20));
        assertEquals(Set.of("GPU 0"), memory.snapshot().keySet());
        List<Finding> third = settle(c, temp(GPU0, 95), temp(GPU1, 95));
        assertEquals(List.of(Severity.FAIL, Severity.PASS), third.stream().map(Finding::severity).toList());
        settle(c, temp(GPU1, 95));
        assertEquals(Set.of("GPU 1"), memory.snapshot().keySet(), "GPU 0 disappeared and was dropped");
    }

    @Test
    void anEntityThatCouldNotBeReadNeitherCountsNorResets() throws Exception {
        CheckConfig c = forThree();
        run(c, 95);
        run(c, 95);
        List<Finding> blind = settle(c, Finding.of("c", GPU0, Severity.UNKNOWN, "GPU 0: cannot read the temperature"));
        assertEquals(Severity.UNKNOWN, blind.get(0).severity());
        assertEquals(Severity.FAIL, run(c, 95).severity());
    }

    @Test
    void forOneUsesNoMemoryAndClearsWhatAnEarlierConfigLeft() throws Exception {
        run(forThree(), 95);
        assertEquals(Set.of("GPU 0"), memory.snapshot().keySet());
        CheckConfig now = plan("", false).config().checks().get(0);
        assertEquals(Severity.FAIL, run(now, 95).severity());
        assertTrue(memory.snapshot().isEmpty());
    }

    @Test
    void countsSurviveBetweenRunsInTheStateDirectory() throws Exception {
        CheckConfig c = forThree();
        for (int i = 1; i <= 3; i++) {
            StateStore store = new StateStore(dir);
            Finding f = policy.settle(c, List.of(temp(GPU0, 99)), store.section("rules.c"), OnUnknown.IGNORE).get(0);
            store.flush();
            assertEquals(i < 3 ? Severity.PASS : Severity.FAIL, f.severity(), "run " + i);
        }
        Path file = dir.resolve("rules.c.json");
        long written = Files.getLastModifiedTime(file).toMillis();
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(written - 60_000));
        StateStore store = new StateStore(dir);
        assertEquals(Severity.FAIL, policy.settle(c, List.of(temp(GPU0, 99)), store.section("rules.c"), OnUnknown.IGNORE).get(0).severity());
        store.flush();
        assertEquals(written - 60_000, Files.getLastModifiedTime(file).toMillis(), "a steady state rewrites nothing");
        assertTrue(store.warnings().isEmpty());
    }

    // ---- whole runs: a probe that throws or hangs saw nothing

    private void gpu0At(long t) {
        Severity s = t > 90 ? Severity.FAIL : Severity.PASS;
        runs.add(ctx -> ProbeResult.of(Observation.of(GPU0).put("severity", s.label()).put("message", "GPU 0: temp " + t + "C").build()));
    }

    private void hangs() {
        runs.add(ctx -> {
            release.await();
            return ProbeResult.of();
        });
    }

    private CheckResult execute(Plan plan, StateStore store) {
        return new PlanExecutor(Clock.systemUTC()).run(RunRequest.of(plan, "gpu-001", store)).checks().get(0);
    }

    @Test
    void aProbeThatThrowsNeitherCountsNorForgetsTheStreaks() throws Exception {
        Plan plan = plan(", for: 3", false);
        StateStore store = new StateStore(dir);
        gpu0At(95);
        runs.add(ctx -> {
            throw new java.io.IOException("NVML: the driver is not loaded");
        });
        gpu0At(95);
        gpu0At(95);

        assertEquals("fail condition met 1 of 3 consecutive runs: GPU 0: temp 95C", execute(plan, store).findings().get(0).message());
        CheckResult threw = execute(plan, store);
        assertEquals(CheckStatus.ERROR, threw.status());
        assertEquals(Severity.UNKNOWN, threw.severity());
        assertEquals(Set.of("GPU 0"), store.section("rules.c").snapshot().keySet(), "the streak of GPU 0 is kept");
        assertEquals("fail condition met 2 of 3 consecutive runs: GPU 0: temp 95C", execute(plan, store).findings().get(0).message());
        assertEquals(Severity.FAIL, execute(plan, store).severity());
    }

    @Test
    void aProbeThatTimesOutNeitherCountsNorForgetsTheStreaks() throws Exception {
        Plan plan = plan(", for: 3, timeout: 300ms", false);
        StateStore store = new StateStore(dir);
        gpu0At(95);
        hangs();
        gpu0At(95);

        execute(plan, store);
        CheckResult hung = execute(plan, store);
        assertEquals(CheckStatus.TIMED_OUT, hung.status());
        assertEquals(Severity.UNKNOWN, hung.severity(), "a host probe's hang cannot decide");
        assertEquals("fail condition met 2 of 3 consecutive runs: GPU 0: temp 95C", execute(plan, store).findings().get(0).message());
    }

    @Test
    void aHangThatMeansSicknessFailsAtOnceWhateverForSays() throws Exception {
        Plan plan = plan(", for: 3, timeout: 300ms, on_unknown: ignore", true);
        StateStore store = new StateStore(dir);
        gpu0At(95);
        hangs();

        execute(plan, store);
        CheckResult hung = execute(plan, store);
        assertEquals(CheckStatus.TIMED_OUT, hung.status());
        assertEquals(Severity.FAIL, hung.severity(), "the daemon cannot run a hung probe again to count three runs");
        assertTrue(hung.findings().get(0).message().startsWith("probe test.p did not finish within 300ms"), hung.findings().get(0).message());
        assertEquals(Set.of("GPU 0"), store.section("rules.c").snapshot().keySet(), "GPU 0's streak is still there for the next real run");
    }

    @Test
    void onUnknownStillAppliesToAProbeThatThrows() throws Exception {
        Plan plan = plan(", for: 3, on_unknown: warn", false);
        runs.add(ctx -> {
            throw new IllegalStateException("boom");
        });
        assertEquals(Severity.WARN, execute(plan, new StateStore(dir)).severity());
    }
}
