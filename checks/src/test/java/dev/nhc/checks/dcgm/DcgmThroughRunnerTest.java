package dev.nhc.checks.dcgm;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.rules.RuleEngine;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The DCGM checks as a config declares them, through the real config loader and runner. */
class DcgmThroughRunnerTest {
    @TempDir
    Path tmp;

    private Plan config(FakeDcgmi fake) throws Exception {
        String yaml = """
                nhc: 1
                settings:
                  dcgmi: %s
                  root: %s
                checks:
                  - name: dcgm
                    use: dcgm.health
                  - name: dcgm-diag
                    use: dcgm.diag
                    with: { level: 2 }
                    every: 6h
                """.formatted(fake.exe, tmp.resolve("root"));
        return new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), List.of()).enforceOwnership(false).parse("nhc.yaml", yaml, null);
    }

    private Verdict run(Plan config, StateStore state, Map<Class<?>, Object> services) {
        PlanExecutor runner = new PlanExecutor(Clock.systemUTC());
        return runner.run(RunRequest.of(config, "node001", state).withServices(services));
    }

    private static CheckResult check(Verdict v, String name) {
        return v.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** The rules add a PASS "ok" per observed entity; these tests are about the rest. */
    private static List<Finding> problems(CheckResult r) {
        return r.findings().stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    @Test
    void healthAndDiagFindingsReachTheVerdictAndTheDiagIsCarriedOverUntilDue() throws Exception {
        Files.createDirectories(tmp.resolve("root/proc"));
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.UNHEALTHY, DcgmTestData.DIAG_V4_FAIL, 226);
        Plan config = config(fake);
        StateStore state = new StateStore(tmp.resolve("state"));

        Verdict first = run(config, state, Map.of());
        assertEquals(Severity.FAIL, first.severity());
        assertEquals(Severity.FAIL, check(first, "dcgm").severity());
        List<Finding> diag = problems(check(first, "dcgm-diag"));
        assertEquals(List.of("GPU 2", "GPU 5"), diag.stream().map(f -> f.entity().label()).toList());
        assertTrue(diag.stream().allMatch(f -> f.check().equals("dcgm-diag")));

        Verdict second = run(config, state, Map.of());
        // checks run in parallel: compare the calls, not their order
        assertEquals(List.of("diag -r 2 -j", "health -c -j", "health -c -j"), fake.calls().stream().sorted().toList(),
                "diag ran again before it was due");
        assertEquals(diag.stream().map(Finding::message).toList(),
                problems(check(second, "dcgm-diag")).stream().map(Finding::message).toList());
    }

    @Test
    void replayFeedsCapturesInsteadOfRunningDcgmi() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin"));
        Verdict v = run(config(fake), new StateStore(tmp.resolve("state")),
                Map.of(DcgmiOutputs.class, new DcgmiOutputs(DcgmTestData.HEALTHY, DcgmTestData.DIAG_TEXT_FAIL, "h.json", "d.txt")));
        assertEquals(List.of(), fake.calls());
        assertEquals(Severity.PASS, check(v, "dcgm").severity());
        assertEquals(Severity.FAIL, check(v, "dcgm-diag").severity());
    }
}
