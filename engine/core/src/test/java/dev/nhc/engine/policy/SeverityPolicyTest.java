package dev.nhc.engine.policy;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The severity table of docs/DESIGN.md: how checks' findings become a verdict, and what it means to
 * the exit code (Slurm's and dstack's columns: SlurmIntentTest and DstackHealthTest).
 */
class SeverityPolicyTest {
    private final SeverityPolicy policy = SeverityPolicy.STANDARD;

    private static Finding finding(Severity s, SlurmState state) {
        return new Finding("c", Entity.NODE, s, "c is " + s.label(), Remedy.NONE, state, Map.of());
    }

    private Verdict verdictOf(Finding... findings) {
        List<Finding> fs = List.of(findings);
        CheckResult c = new CheckResult("c", "test", java.util.Set.of(), CheckStatus.COMPLETED, policy.ofFindings(fs), 1, fs, List.of(), null);
        return policy.verdict("n1", Instant.EPOCH, 1, List.of(c));
    }

    /** severity | exit code: the exit-code column of the table (Slurm's and dstack's are tested in their modules). */
    @ParameterizedTest(name = "{0}: exit {1}")
    @CsvSource({"PASS, 0", "WARN, 0", "UNKNOWN, 0", "FAIL, 1"})
    void theTable(Severity severity, int exit) {
        Verdict v = verdictOf(finding(severity, null));
        assertEquals(severity, v.severity());
        assertEquals(exit, ExitCodes.of(v.severity(), false));
    }

    @Test
    void aCheckThatIgnoresUnknownsStaysUnknownUnderAGlobalFail() throws Exception {
        // settle applies the check's own on_unknown; the config's default is not applied on top.
        PlannedCheck ignoring = planned(", on_unknown: ignore", false);
        List<Finding> settled = policy.settleUndecided(ignoring.check(), List.of(policy.couldNotRun(ignoring, "dcgmi not found")),
                OnUnknown.FAIL);
        assertEquals(Severity.UNKNOWN, settled.get(0).severity());
        assertEquals(Severity.UNKNOWN, verdictOf(settled.get(0)).severity());
    }

    @Test
    void theCircuitBreakerMakesAnOtherwisePassingRunExitOne() {
        assertEquals(1, ExitCodes.of(Severity.PASS, true));
    }

    @Test
    void theOrderIsDataWorstFirstAndRanksFromPassUp() {
        SeverityOrder order = SeverityOrder.STANDARD;
        assertEquals(List.of(Severity.FAIL, Severity.WARN, Severity.UNKNOWN, Severity.PASS), order.severities());
        assertEquals(List.of(0, 1, 2, 3), List.of(order.rank(Severity.PASS), order.rank(Severity.UNKNOWN), order.rank(Severity.WARN),
                order.rank(Severity.FAIL)));
        assertEquals(Severity.WARN, order.worstOf(List.of(Severity.UNKNOWN, Severity.WARN, Severity.PASS)));
        assertEquals(Severity.PASS, order.worstOf(List.of()));
        List<Severity> sorted = new java.util.ArrayList<>(List.of(Severity.PASS, Severity.FAIL, Severity.UNKNOWN, Severity.WARN));
        sorted.sort(order.worstFirst());
        assertEquals(order.severities(), sorted);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new SeverityOrder(List.of(Severity.FAIL, Severity.PASS)), "every severity must have its place");
    }

    /** The policy is the order it is given: a site that ranked unknown above warn would see it in verdicts. */
    @Test
    void aPolicyAggregatesByTheOrderItWasGiven() {
        SeverityPolicy strict = new SeverityPolicy(new SeverityOrder(List.of(Severity.FAIL, Severity.UNKNOWN, Severity.WARN, Severity.PASS)));
        CheckResult w = new CheckResult("w", "t", java.util.Set.of(), CheckStatus.COMPLETED, Severity.WARN, 1, List.of(), List.of(), null);
        CheckResult u = new CheckResult("u", "t", java.util.Set.of(), CheckStatus.ERROR, Severity.UNKNOWN, 1, List.of(), List.of(), null);
        assertEquals(Severity.UNKNOWN, strict.verdict("n", Instant.EPOCH, 0, List.of(w, u)).severity());
        assertEquals(Severity.WARN, policy.verdict("n", Instant.EPOCH, 0, List.of(w, u)).severity());
    }

    @Test
    void aVerdictIsItsWorstCheckAndSkippedChecksDoNotCount() {
        Finding warn = finding(Severity.WARN, null);
        CheckResult w = new CheckResult("w", "t", java.util.Set.of(), CheckStatus.COMPLETED, Severity.WARN, 1, List.of(warn), List.of(), null);
        CheckResult u = new CheckResult("u", "t", java.util.Set.of(), CheckStatus.ERROR, Severity.UNKNOWN, 1, List.of(), List.of(), null);
        CheckResult skipped = new CheckResult("s", "t", java.util.Set.of(), CheckStatus.SKIPPED, Severity.FAIL, 0, List.of(), List.of(), "x");
        assertEquals(Severity.WARN, policy.verdict("n", Instant.EPOCH, 0, List.of(u, w, skipped)).severity(),
                "UNKNOWN ranks below WARN: no opinion never outranks a degradation; a skipped check does not count");
        assertEquals(Severity.PASS, policy.verdict("n", Instant.EPOCH, 0, List.of()).severity());
    }

    private PlannedCheck planned(String checkYaml, boolean gpu) throws Exception {
        ScriptedProbe probe = new ScriptedProbe("test.p", gpu, ctx -> ProbeResult.of());
        Plan p = new ConfigLoader(new ProbeRegistry(List.of(probe)), new PassThroughRules(), List.of()).enforceOwnership(false)
                .parse("t.yaml", "nhc: 1\nchecks:\n  - { name: c, use: test.p" + checkYaml + " }\n", null);
        return p.checks().get(0);
    }

    @ParameterizedTest(name = "on_unknown {0}: unknown counts as {1}")
    @CsvSource({"ignore, UNKNOWN", "warn, WARN", "fail, FAIL"})
    void onUnknownSaysWhatCouldNotDecideCountsAs(String onUnknown, Severity counted) throws Exception {
        PlannedCheck c = planned(", on_unknown: " + onUnknown, false);
        List<Finding> out = policy.settle(c.check(), List.of(finding(Severity.UNKNOWN, null)), StateSection.detached("m"), OnUnknown.IGNORE);
        assertEquals(counted, out.get(0).severity());
    }

    @Test
    void theConfigsOnUnknownAppliesWhenTheCheckSetsNone() throws Exception {
        PlannedCheck c = planned("", false);
        assertEquals(Severity.WARN, policy.settle(c.check(), List.of(finding(Severity.UNKNOWN, null)), StateSection.detached("m"),
                OnUnknown.WARN).get(0).severity());
    }

    @Test
    void aTimeoutFailsAProbeWhoseHangMeansSicknessAndIsUnknownOtherwise() throws Exception {
        Finding gpu = policy.timedOut(planned("", true), "hung");
        assertEquals(Severity.FAIL, gpu.severity());
        assertEquals(Remedy.REBOOT, gpu.remedy());
        Finding host = policy.timedOut(planned("", false), "hung");
        assertEquals(Severity.UNKNOWN, host.severity());
        assertEquals(Remedy.NONE, host.remedy());
        assertNull(host.slurmState());
    }

    @Test
    void aTimedOutGpuCheckKeepsItsSlurmState() throws Exception {
        assertEquals(SlurmState.FAIL, policy.timedOut(planned(", slurm_state: fail", true), "hung").slurmState());
    }

    @Test
    void forNHoldsAFindingBackUntilItHasLastedNRuns() throws Exception {
        PlannedCheck c = planned(", for: 2", false);
        StateSection memory = StateSection.detached("m");
        Finding first = policy.settle(c.check(), List.of(finding(Severity.FAIL, null)), memory, OnUnknown.IGNORE).get(0);
        assertEquals(Severity.PASS, first.severity());
        assertEquals("fail condition met 1 of 2 consecutive runs: c is fail", first.message());
        assertEquals(Severity.FAIL, policy.settle(c.check(), List.of(finding(Severity.FAIL, null)), memory, OnUnknown.IGNORE).get(0).severity());
    }

    @Test
    void anEntityThatCouldNotBeReadIsUnknownWithItsReason() throws Exception {
        Finding f = policy.unreadable(planned("", false), dev.nhc.model.Observation.unreadable(Entity.of(Entity.Kind.MOUNT, "/x"),
                "cannot read /proc/self/mounts: no such file"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("cannot read /proc/self/mounts: no such file", f.message());
        assertEquals("/x", f.entity().label());
    }
}
