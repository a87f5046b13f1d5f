package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static dev.nhc.rules.Rules.obs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code for: N}: a finding counts after N consecutive runs; the count shows while it builds; a pass resets it. */
class ForRunsTest {
    private final Rules rules = new Rules();
    private final StateSection memory = StateSection.detached("c");

    private CheckConfig forThree() throws Exception {
        return rules.check("for: 3", "fail: { temp: \"> 90C\" }", "warn: { temp: \"> 80C\" }", "slurm_state: fail", "remedy: reset-gpu");
    }

    private Finding run(CheckConfig c, long temp) {
        List<Finding> out = rules.evaluate(c, memory, obs("gpu0", "temp", temp));
        assertEquals(1, out.size());
        return out.get(0);
    }

    @Test
    void failCountsOnlyAfterThreeConsecutiveRuns() throws Exception {
        CheckConfig c = forThree();
        Finding first = run(c, 95);
        assertEquals(Severity.PASS, first.severity());
        assertEquals("fail condition met 1 of 3 consecutive runs: gpu0: temp 95C > 90C", first.message());
        assertEquals(Remedy.NONE, first.remedy());
        assertNull(first.slurmState());
        assertEquals(95L, first.observed().get("temp"), "the building finding still shows what was seen");

        Finding second = run(c, 96);
        assertEquals(Severity.PASS, second.severity());
        assertTrue(second.message().startsWith("fail condition met 2 of 3 consecutive runs: "), second.message());

        Finding third = run(c, 97);
        assertEquals(Severity.FAIL, third.severity());
        assertEquals("gpu0: temp 97C > 90C", third.message());
        assertEquals(SlurmState.FAIL, third.slurmState());
        assertEquals(Remedy.RESET_GPU, third.remedy());
        assertEquals(Severity.FAIL, run(c, 97).severity(), "stays FAIL while the condition holds");
    }

    @Test
    void aPassResetsTheCount() throws Exception {
        CheckConfig c = forThree();
        run(c, 95);
        run(c, 95);
        Finding ok = run(c, 20);
        assertEquals(Severity.PASS, ok.severity());
        assertEquals("ok: temp 20C", ok.message());
        assertTrue(memory.snapshot().isEmpty(), "a pass forgets the entity");
        assertEquals("fail condition met 1 of 3 consecutive runs: gpu0: temp 95C > 90C", run(c, 95).message());
        run(c, 95);
        assertEquals(Severity.FAIL, run(c, 95).severity());
        assertEquals(Severity.PASS, run(c, 20).severity());
        assertEquals(Severity.PASS, run(c, 95).severity(), "after a pass, it builds again from 1");
    }

    @Test
    void warningsCountTowardsWarnAndAFailBuildingOnThemIsReportedAsWarn() throws Exception {
        CheckConfig c = forThree();
        assertEquals("warn condition met 1 of 3 consecutive runs: gpu0: temp 85C > 80C", run(c, 85).message());
        run(c, 85);
        assertEquals(Severity.WARN, run(c, 85).severity());
        Finding building = run(c, 95);
        assertEquals(Severity.WARN, building.severity(), "three runs at warn or worse: at least WARN");
        assertEquals("fail condition met 1 of 3 consecutive runs: gpu0: temp 95C > 90C", building.message());
        assertNull(building.slurmState());
        run(c, 95);
        assertEquals(Severity.FAIL, run(c, 95).severity());
        Finding backToWarn = run(c, 85);
        assertEquals(Severity.WARN, backToWarn.severity(), "the warn streak was not broken by the fails");
    }

    @Test
    void entitiesCountSeparatelyAndThoseNoLongerSeenAreForgotten() throws Exception {
        CheckConfig c = forThree();
        rules.evaluate(c, memory, obs("gpu0", "temp", 95L), obs("gpu1", "temp", 95L));
        rules.evaluate(c, memory, obs("gpu0", "temp", 95L), obs("gpu1", "temp", 20L));
        assertEquals(Set.of("gpu0"), memory.snapshot().keySet());
        List<Finding> third = rules.evaluate(c, memory, obs("gpu0", "temp", 95L), obs("gpu1", "temp", 95L));
        assertEquals(List.of(Severity.FAIL, Severity.PASS), third.stream().map(Finding::severity).toList());
        rules.evaluate(c, memory, obs("gpu1", "temp", 95L));
        assertEquals(Set.of("gpu1"), memory.snapshot().keySet(), "gpu0 disappeared and was dropped");
    }

    @Test
    void unknownNeitherCountsNorResets() throws Exception {
        CheckConfig c = forThree();
        run(c, 95);
        run(c, 95);
        List<Finding> blind = rules.evaluate(c, memory, obs("gpu0"));
        assertEquals(Severity.UNKNOWN, blind.get(0).severity());
        assertEquals(Severity.FAIL, run(c, 95).severity());
    }

    @Test
    void forOneUsesNoMemoryAndClearsWhatAnEarlierConfigLeft() throws Exception {
        run(forThree(), 95);
        assertEquals(Set.of("gpu0"), memory.snapshot().keySet());
        CheckConfig now = rules.check("fail: { temp: \"> 90C\" }");
        assertEquals(Severity.FAIL, run(now, 95).severity());
        assertTrue(memory.snapshot().isEmpty());
    }

    @Test
    void countsSurviveBetweenRunsInTheStateDirectory(@TempDir Path dir) throws Exception {
        CheckConfig c = forThree();
        for (int i = 1; i <= 3; i++) {
            StateStore store = new StateStore(dir);
            Finding f = rules.evaluate(c, store.section("check.c"), obs("/", "temp", 99L)).get(0);
            store.flush();
            assertEquals(i < 3 ? Severity.PASS : Severity.FAIL, f.severity(), "run " + i);
        }
        Path file = dir.resolve("check.c.json");
        long written = Files.getLastModifiedTime(file).toMillis();
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(written - 60_000));
        StateStore store = new StateStore(dir);
        assertEquals(Severity.FAIL, rules.evaluate(c, store.section("check.c"), obs("/", "temp", 99L)).get(0).severity());
        store.flush();
        assertEquals(written - 60_000, Files.getLastModifiedTime(file).toMillis(), "a steady state rewrites nothing");
        assertTrue(store.warnings().isEmpty());
    }
}
