package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction.ActionOutcome;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.Entity;
import dev.nhc.engine.config.Settings;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Params;
import dev.nhc.engine.state.StateStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Every branch of the Slurm state machine, against a fake scontrol that records its argv. */
class SlurmActionTest {
    private static final String NODE = "gpu-001";

    @TempDir
    Path tmp;
    FakeSlurm slurm;
    Path stateDir;
    Map<String, Object> section;
    Map<String, String> env;
    Instant now = Instant.parse("2026-11-22T04:00:00Z");
    ActionOutcome last;

    @BeforeEach
    void setUp() throws IOException {
        slurm = new FakeSlurm(tmp.resolve("slurm"));
        stateDir = tmp.resolve("state");
        section = new LinkedHashMap<>();
        section.put("scontrol", slurm.scontrol.toString());
        section.put("sinfo", slurm.sinfo.toString());
        section.put("command_timeout", Duration.ofSeconds(5));
        env = new LinkedHashMap<>();
        slurm.node(NODE, "IDLE", null);
    }

    // ---- helpers -------------------------------------------------------------------------------

    static Finding fail(String check, String message) {
        return new Finding(check, Entity.NODE, Severity.FAIL, message, Remedy.NONE, null, Map.of());
    }

    static Finding failHw(String check, String message) {
        return new Finding(check, Entity.gpu(0, null), Severity.FAIL, message, Remedy.HARDWARE, SlurmState.FAIL, Map.of());
    }

    static Finding of(Severity s, String check, String message) {
        return new Finding(check, Entity.NODE, s, message, Remedy.NONE, null, Map.of());
    }

    static Verdict verdict(Finding... findings) {
        List<CheckResult> checks = new ArrayList<>();
        for (Finding f : findings) {
            checks.add(new CheckResult(f.check(), "test.probe", Set.of(), CheckStatus.COMPLETED, f.severity(), 1, List.of(f), List.of(), null));
        }
        if (checks.isEmpty()) {
            checks.add(new CheckResult("root-fs", "disk.usage", Set.of(), CheckStatus.COMPLETED, Severity.PASS, 1,
                    List.of(of(Severity.PASS, "root-fs", "ok")), List.of(), null));
        }
        return SeverityPolicy.STANDARD.verdict(NODE, Instant.now(), 5, checks);
    }

    static Verdict passing() {
        return verdict();
    }

    /** A plan with the check names the tests' findings use, so nhc recognises its own reasons. */
    static Plan plan(Map<String, Object> section) {
        List<dev.nhc.engine.config.CheckConfig> checks = new ArrayList<>();
        for (String name : List.of("root-fs", "gpu-ecc", "xid", "load", "dcgm")) {
            checks.add(new dev.nhc.engine.config.CheckConfig(name, "test.probe", new dev.nhc.engine.config.Location("nhc.yaml", 1, 1),
                    dev.nhc.engine.config.HostSelector.all(), Params.empty(), null, null, null, null, null, 1, null, null, null, null));
        }
        return new Plan(new Config(Path.of("/etc/nhc/nhc.yaml"), new Settings(Params.empty()), Map.of(), checks,
                Map.of("slurm", new Params(section)), Set.of("slurm")), List.of());
    }

    /** One nhc run: a fresh state store (as each process has), the action, then the flush the CLI does. */
    ActionOutcome run(Verdict v) throws IOException {
        return run(v, now.plusSeconds(40));
    }

    ActionOutcome run(Verdict v, Instant deadline) throws IOException {
        StateStore store = new StateStore(stateDir);
        Plan config = plan(section);
        SlurmAction action = new SlurmAction(env, Clock.fixed(now, ZoneOffset.UTC), Duration.ofMillis(10));
        last = action.apply(v, config, store, NODE, deadline);
        store.flush();
        now = now.plusSeconds(10);
        return last;
    }

    List<String> update(String... args) {
        List<String> argv = new ArrayList<>(List.of("scontrol", "update"));
        argv.addAll(List.of(args));
        return argv;
    }

    String said() {
        return String.join("\n", last.lines());
    }

    // ---- fail → DRAIN / FAIL -------------------------------------------------------------------

    @Test
    void failingCheckDrainsTheNodeWithAnNhcReason() throws IOException {
        ActionOutcome out = run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals(List.of(update("NodeName=" + NODE, "State=DRAIN", "Reason=NHC: root-fs: used 97% of /")), slurm.updates());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertFalse(out.forceFailure());
        assertTrue(said().contains("set node gpu-001 to DRAIN"), said());
    }

    @Test
    void findingWithSlurmStateFailSetsFail() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /"), failHw("gpus", "GPU 0 fell off the bus")));

        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL",
                "Reason=NHC: root-fs: used 97% of /; gpus: GPU 0 fell off the bus")), slurm.updates());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    @Test
    void failureStateFailInTheConfigSetsFailForEveryFailFinding() throws IOException {
        section.put("failure_state", "fail");
        run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    @Test
    void aFindingAskingForDrainKeepsDrainEvenWhenTheDefaultIsFail() throws IOException {
        section.put("failure_state", "fail");
        run(verdict(fail("root-fs", "used 97% of /").withSlurmState(SlurmState.DRAIN)));

        assertEquals("IDLE+DRAIN", slurm.state(NODE));
    }

    @Test
    void theReasonNeverReachesAShell() throws IOException {
        Path marker = tmp.resolve("pwned");
        String evil = "x$(touch " + marker + "); `touch " + marker + "` 'q' \"dq\"\nsecond line";

        run(verdict(fail("evil", evil)));

        assertFalse(Files.exists(marker), "a shell ran part of the reason");
        String reason = slurm.reason(NODE);
        assertEquals("NHC: evil: x$(touch " + marker + "); 'touch " + marker + "' 'q' 'dq' second line", reason);
    }

    // ---- pass → RESUME -------------------------------------------------------------------------

    @Test
    void passResumesANodeNhcDrainedAfterResumeAfterPassingRuns() throws IOException {
        section.put("resume_after", 2L);
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.forgetCalls();

        run(passing());
        assertEquals(List.of(), slurm.updates());
        assertTrue(said().contains("passed 1 of 2"), said());

        run(passing());
        assertEquals(List.of(update("NodeName=" + NODE, "State=RESUME")), slurm.updates());
        assertEquals("IDLE", slurm.state(NODE));

        slurm.forgetCalls();
        run(passing());
        assertEquals(List.of(), slurm.updates(), "a resumed node is not nhc's any more");
    }

    @Test
    void aFailingRunInBetweenStartsTheCountAgain() throws IOException {
        section.put("resume_after", 2L);
        run(verdict(fail("root-fs", "used 97% of /")));
        run(passing());
        run(verdict(fail("root-fs", "used 97% of /")));
        run(passing());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        run(passing());
        assertEquals("IDLE", slurm.state(NODE));
    }

    @Test
    void passResumesANodeNhcFailed() throws IOException {
        run(verdict(failHw("gpus", "GPU 0 fell off the bus")));
        assertEquals("IDLE+FAIL", slurm.state(NODE));

        run(passing());
        assertEquals("IDLE", slurm.state(NODE));
    }

    @Test
    void passDoesNothingToAHealthyNode() throws IOException {
        run(passing());
        assertEquals(List.of(), slurm.updates());
        assertEquals(List.of(), last.lines());
    }

    // ---- warn / unknown change nothing ---------------------------------------------------------

    @Test
    void warnAndUnknownChangeNothingAndNeitherCountNorResetResumeAfter() throws IOException {
        run(verdict(of(Severity.WARN, "load", "load 30 on 2 CPUs")));
        run(verdict(of(Severity.UNKNOWN, "dcgm", "dcgmi not installed")));
        assertEquals(List.of(), slurm.updates());
        assertEquals("IDLE", slurm.state(NODE));

        section.put("resume_after", 2L);
        run(verdict(fail("root-fs", "used 97% of /")));
        run(passing());
        run(verdict(of(Severity.WARN, "load", "load 30 on 2 CPUs")));
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertTrue(said().contains("neither resumes it nor counts"), said());
        run(passing());
        assertEquals("IDLE", slurm.state(NODE));
    }

    // ---- what others did is never touched ------------------------------------------------------

    @Test
    void anAdminDrainStaysWithItsReasonWhileChecksPassAndFail() throws IOException {
        slurm.node(NODE, "IDLE+DRAIN", "maintenance");

        run(passing());
        run(verdict(fail("root-fs", "used 97% of /")));
        run(passing());

        assertEquals(List.of(), slurm.updates());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertEquals("maintenance", slurm.reason(NODE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"DOWN", "IDLE+FAIL", "MIXED+DRAIN"})
    void aNodeHeldBySomeoneElseIsNeverResumedNorItsReasonOverwritten(String state) throws IOException {
        slurm.node(NODE, state, "hw swap ticket 123");

        run(verdict(fail("root-fs", "used 97% of /")));
        assertTrue(said().contains("by someone else"), said());
        run(passing());

        assertEquals(List.of(), slurm.updates());
        assertEquals("hw swap ticket 123", slurm.reason(NODE));
    }

    @Test
    void anAdminWhoRewritesTheReasonOfNhcsDrainTakesTheNodeOver() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.node(NODE, "IDLE+DRAIN", "NHC: keep this one out, bob");
        slurm.forgetCalls();

        run(passing());
        run(passing());
        run(verdict(fail("root-fs", "used 98% of /")));

        assertEquals(List.of(), slurm.updates());
        assertEquals("NHC: keep this one out, bob", slurm.reason(NODE));
        assertTrue(String.join("\n", last.lines()).contains("by someone else"), said());
    }

    @Test
    void anAdminWhoResumedASickNodeSeesItDrainedAgain() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.node(NODE, "IDLE", null);

        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertEquals("NHC: root-fs: used 97% of /", slurm.reason(NODE));
    }

    // ---- reason updates without flapping -------------------------------------------------------

    @Test
    void aSecondFailingCheckUpdatesTheReasonWithoutChangingTheState() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.forgetCalls();

        run(verdict(fail("root-fs", "used 97% of /"), fail("memory", "2 GiB free")));

        assertEquals(List.of(update("NodeName=" + NODE, "Reason=NHC: root-fs: used 97% of /; memory: 2 GiB free")), slurm.updates());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));

        slurm.forgetCalls();
        run(verdict(fail("root-fs", "used 97% of /"), fail("memory", "2 GiB free")));
        assertEquals(List.of(), slurm.updates(), "an unchanged reason is not sent again");

        run(passing());
        assertEquals("IDLE", slurm.state(NODE), "nhc still owns the node under its updated reason");
    }

    @Test
    void aHardwareFaultEscalatesNhcsDrainToFail() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.forgetCalls();

        run(verdict(failHw("gpus", "GPU 0 fell off the bus")));

        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=NHC: gpus: GPU 0 fell off the bus")), slurm.updates());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    @Test
    void nhcsFailIsNotDowngradedToDrain() throws IOException {
        run(verdict(failHw("gpus", "GPU 0 fell off the bus")));
        slurm.forgetCalls();

        run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals(List.of(update("NodeName=" + NODE, "Reason=NHC: root-fs: used 97% of /")), slurm.updates());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    // ---- states nhc leaves alone ---------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"IDLE+REBOOT_REQUESTED", "MIXED+REBOOT_ISSUED", "IDLE+POWERING_UP", "IDLE+CLOUD+POWERED_DOWN",
            "IDLE+POWERING_DOWN", "IDLE+MAINTENANCE+RESERVED", "DOWN*", "DOWN*+DRAIN", "FUTURE"})
    void statesOwnedByOtherPartsOfSlurmAreLeftAlone(String state) throws IOException {
        slurm.node(NODE, state, null);

        run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals(List.of(), slurm.updates());
        assertTrue(said().contains("alone"), said());
    }

    @Test
    void aNodeThatIsMerelySlowToRespondIsStillDrained() throws IOException {
        slurm.node(NODE, "IDLE*", null);

        run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals("IDLE*+DRAIN", slurm.state(NODE));
    }

    // ---- circuit breaker -----------------------------------------------------------------------

    @Test
    void circuitBreakerRefusesADrainThatWouldPassTheFraction() throws IOException {
        slurm.node("gpu-002", "IDLE+DRAIN", "NHC: root-fs: used 97% of /")
                .node("gpu-003", "DOWN+DRAIN", "NHC: root-fs: used 99% of /")
                .node("gpu-004", "IDLE", null);

        ActionOutcome out = run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals(List.of(), slurm.updates());
        assertEquals("IDLE", slurm.state(NODE));
        assertTrue(out.forceFailure());
        assertTrue(said().contains("circuit breaker open: 2 of 4 nodes"), said());
    }

    @Test
    void drainsByAdminsDoNotCountTowardsTheCircuitBreaker() throws IOException {
        slurm.node("gpu-002", "IDLE+DRAIN", "NHC: root-fs: used 97% of /")
                .node("gpu-003", "IDLE+DRAIN", "maintenance")
                .node("gpu-004", "IDLE", null);

        ActionOutcome out = run(verdict(fail("root-fs", "used 97% of /")));

        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertFalse(out.forceFailure());
    }

    @Test
    void theFirstDrainIsAlwaysAllowedEvenOnASingleNodeCluster() throws IOException {
        section.put("max_drained_fraction", 0.1);
        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
    }

    @Test
    void theCircuitBreakerCountsOnlyTheConfiguredPartition() throws IOException {
        slurm.node("gpu-002", "IDLE", null)
                .node("cpu-001", "IDLE+DRAIN", "NHC: x: y")
                .node("cpu-002", "IDLE+DRAIN", "NHC: x: y")
                .node("cpu-003", "IDLE+DRAIN", "NHC: x: y")
                .partition("gpu", NODE, "gpu-002");
        section.put("partition", "gpu");

        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertTrue(slurm.calls().stream().anyMatch(c -> c.equals(List.of("sinfo", "-h", "-N", "-p", "gpu", "-o", "%N"))));

        slurm.node(NODE, "IDLE", null);
        slurm.node("gpu-002", "IDLE+DRAIN", "NHC: x: y");
        section.remove("partition");
        stateDir = tmp.resolve("state2");
        ActionOutcome out = run(verdict(fail("root-fs", "used 97% of /")));
        assertTrue(out.forceFailure(), "without the partition, 4 of 5 nodes count");
    }

    @Test
    void theCircuitBreakerDoesNotStopReasonUpdatesOfANodeNhcAlreadyHolds() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.node("gpu-002", "IDLE+DRAIN", "NHC: x: y").node("gpu-003", "IDLE+DRAIN", "NHC: x: y");

        ActionOutcome out = run(verdict(fail("root-fs", "used 99% of /")));

        assertFalse(out.forceFailure());
        assertEquals("NHC: root-fs: used 99% of /", slurm.reason(NODE));
    }

    // ---- Slurm trouble -------------------------------------------------------------------------

    @Test
    void slurmDownKeepsTheDrainAndAppliesItOnTheNextRun() throws IOException {
        slurm.down(true);
        section.put("retries", 1L);
        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals(List.of(), slurm.updates());
        assertTrue(said().contains("will set DRAIN"), said());
        long attempts = slurm.calls().stream().filter(c -> c.get(1).equals("show")).count();
        assertEquals(2, attempts, "one try and one retry");

        slurm.down(false);
        run(passing());
        assertEquals(List.of(update("NodeName=" + NODE, "State=DRAIN", "Reason=NHC: root-fs: used 97% of /")), slurm.updates());
        assertTrue(said().contains("applying the drain intended"), said());

        run(passing());
        assertEquals("IDLE", slurm.state(NODE), "once applied, the drain is nhc's and resumes normally");
    }

    @Test
    void aNodeNotYetRegisteredGetsItsDrainOnceItIs() throws IOException {
        Files.delete(slurm.dir.resolve("nodes").resolve(NODE));
        run(verdict(failHw("gpus", "GPU 0 fell off the bus")));
        assertTrue(said().contains("not registered"), said());
        assertEquals(1, slurm.calls().size(), "'not found' is not retried");

        slurm.node(NODE, "IDLE", null);
        run(verdict(of(Severity.WARN, "load", "high")));
        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    @Test
    void aPendingDrainOlderThanPendingMaxAgeIsDropped() throws IOException {
        slurm.down(true);
        section.put("retries", 0L);
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.down(false);
        now = now.plus(Duration.ofHours(1));

        run(passing());

        assertEquals(List.of(), slurm.updates());
        assertTrue(said().contains("dropping the drain"), said());
    }

    @Test
    void aFailingUpdateIsKeptAndAppliedOnTheNextRun() throws IOException {
        slurm.updateFails(true);
        section.put("retries", 0L);
        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals("IDLE", slurm.state(NODE));
        assertTrue(said().contains("applied on the next run"), said());

        slurm.updateFails(false);
        run(passing());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
    }

    @Test
    void aDrainFromARunKilledBeforeItRecordedOwnershipIsStillRecognisedAsNhcs() throws IOException {
        // The intent is written before scontrol runs; simulate a run killed right after scontrol drained.
        slurm.updateFails(true);
        section.put("retries", 0L);
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.node(NODE, "IDLE+DRAIN", "NHC: root-fs: used 97% of /");
        slurm.updateFails(false);
        slurm.forgetCalls();

        run(passing());

        assertEquals(List.of(update("NodeName=" + NODE, "State=RESUME")), slurm.updates());
    }

    @Test
    void aHungScontrolIsKilledAndTheRunEndsBeforeItsDeadline() throws IOException {
        slurm.slow(true);
        section.put("command_timeout", Duration.ofSeconds(1));
        section.put("retries", 5L);
        Instant realNow = Instant.now();
        now = realNow;
        Instant deadline = realNow.plusSeconds(4);
        SlurmAction action = new SlurmAction(env, Clock.systemUTC(), Duration.ofMillis(10));
        StateStore store = new StateStore(stateDir);
        Plan config = plan(section);

        ActionOutcome out = action.apply(verdict(fail("root-fs", "used 97% of /")), config, store, NODE, deadline);

        assertTrue(Instant.now().isBefore(deadline.plusSeconds(3)), "finished " + Duration.between(deadline, Instant.now()) + " after its deadline");
        assertTrue(String.join("\n", out.lines()).contains("will set DRAIN"), out.lines().toString());
        assertEquals("DRAIN".toLowerCase(), store.section("slurm").getString("pending_state"));
    }

    @Test
    void aMissingScontrolIsReportedAndTheDrainKept() throws IOException {
        section.put("scontrol", tmp.resolve("no/such/scontrol").toString());

        run(verdict(fail("root-fs", "used 97% of /")));

        assertTrue(said().contains("no/such/scontrol is missing"), said());
        assertTrue(said().contains("will set DRAIN"), said());
    }

    @Test
    void aHealthyRunOfANodeNhcDoesNotHoldAsksSlurmNothing() throws IOException {
        run(passing());
        int first = slurm.calls().size();
        run(verdict(of(Severity.WARN, "load", "load 40 > 32")));
        run(verdict(of(Severity.UNKNOWN, "dcgm", "dcgmi not installed")));
        assertEquals(first, slurm.calls().size(), "the ledger knows nhc holds nothing: no RPC to slurmctld");
    }

    @Test
    void aHealthyRunOfANodeNhcHoldsAsksOnceThenResumesIt() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals(List.of("scontrol show node -o " + NODE, "scontrol show node -o",
                "scontrol update NodeName=" + NODE + " State=DRAIN Reason=NHC: root-fs: used 97% of /"), commands(0),
                "a drain: the node's state, the circuit breaker's count, the update");
        int before = slurm.calls().size();
        run(passing());
        assertEquals(List.of("scontrol show node -o " + NODE, "scontrol update NodeName=" + NODE + " State=RESUME"), commands(before),
                "a node nhc holds: one query, then the resume");
        before = slurm.calls().size();
        run(passing());
        assertEquals(List.of(), commands(before), "resumed and forgotten: nothing more to ask");
    }

    private List<String> commands(int from) throws IOException {
        List<List<String>> all = slurm.calls();
        return all.subList(from, all.size()).stream().map(c -> String.join(" ", c).replaceAll("^\\S*/scontrol", "scontrol")).toList();
    }

    @Test
    void slurmDownWhilePassingOnANodeNhcHoldsChangesNothing() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        slurm.down(true);
        section.put("retries", 0L);
        run(passing());
        assertTrue(said().contains("nothing changed"), said());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
    }

    // ---- environment ---------------------------------------------------------------------------

    @Test
    void slurmConfFromTheConfigReachesScontrolAndTheEnvironmentWins() throws IOException {
        section.put("slurm_conf", "/srv/slurm/slurm.conf");
        run(verdict(fail("root-fs", "used 97% of /")));
        assertEquals("/srv/slurm/slurm.conf", slurm.lastSlurmConf());

        env.put("SLURM_CONF", "/from/env/slurm.conf");
        run(passing());
        assertEquals("/from/env/slurm.conf", slurm.lastSlurmConf());
    }

    @Test
    void theStateOfAnotherNodeIsNotMistakenForThisOnes() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        Path file = stateDir.resolve("slurm.json");
        String before = Files.readString(file);
        assertTrue(before.contains("\"node\" : \"" + NODE + "\""), before);
        Files.writeString(file, before.replace("\"node\" : \"" + NODE + "\"", "\"node\" : \"gpu-999\""));
        // Meanwhile an admin took the node over with a reason of their own.
        slurm.node(NODE, "IDLE+DRAIN", "ticket 4711");
        slurm.forgetCalls();

        run(passing());

        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertEquals(List.of(), slurm.updates(), "another node's record gives nhc no claim on this node");
    }

    @Test
    void aReasonChangeTheLedgerCouldNotRecordIsStillRecognisedAsNhcsAndResumed() throws Exception {
        assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "skipped: needs root to mount a small tmpfs (CI runs as root)");
        Path full = Files.createDirectories(tmp.resolve("full"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", full.toString())
                .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor() == 0, "skipped: cannot mount a tmpfs here");
        try {
            stateDir = full.resolve("state");
            run(verdict(fail("root-fs", "used 97% of /")));
            assertEquals("IDLE+DRAIN", slurm.state(NODE));
            Path filler = full.resolve("filler");
            try (var out = Files.newOutputStream(filler)) {
                byte[] block = new byte[4096];
                for (int i = 0; i < 64; i++) {
                    out.write(block);
                }
            } catch (IOException diskFull) {
                // what the test wants
            }

            // The disk is full: the run that updates the reason cannot save its intent, and removes the record instead.
            StateStore store = new StateStore(stateDir);
            last = new SlurmAction(env, Clock.fixed(now, ZoneOffset.UTC), Duration.ofMillis(10))
                    .apply(verdict(fail("root-fs", "used 99% of /")), plan(section), store, NODE, now.plusSeconds(40));
            assertEquals("NHC: root-fs: used 99% of /", slurm.reason(NODE));
            assertTrue(said().contains("removed nhc's Slurm record"), said());
            assertTrue(Files.notExists(stateDir.resolve("slurm.json")) && Files.notExists(stateDir.resolve("slurm.json.prev")));
            Files.delete(filler);
            now = now.plusSeconds(10);

            run(passing());

            assertEquals("IDLE", slurm.state(NODE), "resumed: no record, and the reason is in nhc's format");
            assertTrue(said().contains("nhc treats the drain as its own"), said());
        } finally {
            new ProcessBuilder("umount", "-l", full.toString()).start().waitFor();
        }
    }

    @Test
    void anAdminsEditOfNhcsReasonMakesTheDrainTheirs() throws IOException {
        run(verdict(fail("root-fs", "used 97% of /")));
        // An admin appends a ticket number to nhc's reason: it still reads like nhc's, but it is not what nhc recorded.
        slurm.node(NODE, "IDLE+DRAIN", "NHC: root-fs: used 97% of / (ticket 4711)");

        run(passing());

        assertEquals("IDLE+DRAIN", slurm.state(NODE), "nhc does not resume a drain whose reason someone else wrote");
    }

    @Test
    void withTheLedgerLostAnNhcDrainIsStillResumed() throws IOException {
        slurm.node(NODE, "IDLE+DRAIN", "NHC: root-fs: used 97% of /");

        run(passing());

        assertEquals("IDLE", slurm.state(NODE));
        assertTrue(said().contains("record is missing"), said());
    }

    /** Issue 13's fault suite: such a record made the run end with exit 3 (IllegalArgumentException from SlurmState.parse). */
    @ParameterizedTest
    @ValueSource(strings = {
        "{\"node\": \"gpu-001\", \"pending_state\": \"resume-now\", \"pending_reason\": \"NHC: root-fs: x\", \"pending_since\": \"2026-11-22T03:59:00Z\"}",
        "{\"node\": \"gpu-001\", \"owned_state\": \"drain\", \"owned_reason\": [\"ticket 4711\"], \"owned_since\": 5}",
        "{\"node\": \"gpu-001\", \"owned_state\": \"drain\", \"owned_reason\": \"ticket 4711\", \"passes\": \"many\"}",
        "{\"node\": \"gpu-001\", \"owned_reason\": \"ticket 4711\"}",
        "{\"node\": [\"gpu-001\"], \"owned_state\": \"drain\", \"owned_reason\": \"ticket 4711\"}"})
    void aLedgerHoldingValuesNhcNeverWritesIsNotUsedAndTheAdminsDrainStays(String record) throws IOException {
        Files.createDirectories(stateDir);
        Files.writeString(stateDir.resolve("slurm.json"), record + "\n");
        Files.writeString(stateDir.resolve("slurm.json.prev"), record + "\n");
        slurm.node(NODE, "IDLE+DRAIN", "ticket 4711");

        run(passing());

        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertEquals(List.of(), slurm.updates(), "an unusable record gives nhc no claim on the node: " + said());
        String saved = Files.readString(stateDir.resolve("slurm.json"));
        assertFalse(saved.contains("ticket 4711") || saved.contains("resume-now"), saved);
        if (!record.startsWith("{\"node\": [")) {
            assertTrue(said().contains("holds values nhc never writes ("), said());
        }

        run(passing());
        assertEquals(List.of(), slurm.updates());
        assertFalse(said().contains("never writes"), "the record written afresh is nhc's own: " + said());
    }

    @Test
    void anUnreadableLedgerIsMissingNotAClaimOnAnAdminsDrain() throws IOException {
        Files.createDirectories(stateDir);
        Files.writeString(stateDir.resolve("slurm.json"), "\u0000{\"owned_reason\": \"ticket 4711\", garb");
        Files.writeString(stateDir.resolve("slurm.json.prev"), "owned_state: drain\n");
        slurm.node(NODE, "IDLE+DRAIN", "ticket 4711");

        run(passing());

        assertEquals(List.of(), slurm.updates(), said());
        assertEquals(1, slurm.calls().size(), "a lost record costs one look at the node");
        assertFalse(Files.readString(stateDir.resolve("slurm.json")).contains("state_lost"), "the ledger starts afresh; Slurm was asked");
    }

    @Test
    void aFreshLedgerAsksOnceThenNeverOnHealthyRuns() throws IOException {
        run(passing());
        assertEquals(1, slurm.calls().size(), "the first run has no record: one look at the node");
        run(passing());
        run(passing());
        assertEquals(1, slurm.calls().size(), "then the ledger knows");
    }
}
