package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction.ActionOutcome;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.engine.config.Location;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Params;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.RepairRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The repair ladder, every rung and every "never", against the recording fake scontrol: the node's
 * boot id is a file under the plan's system root, which a test changes to "reboot" the node.
 */
class RepairLadderTest {
    private static final String NODE = "gpu-001";
    private static final String XID = "GPU 1 (0000:3b:00.0): XID 79 (GPU has fallen off the bus) since 04:00:00";

    @TempDir
    Path tmp;
    FakeSlurm slurm;
    Path stateDir;
    Path root;
    Map<String, Object> section;
    Instant now = Instant.parse("2026-11-22T04:00:00Z");
    ActionOutcome last;

    @BeforeEach
    void setUp() throws IOException {
        slurm = new FakeSlurm(tmp.resolve("slurm"));
        stateDir = tmp.resolve("state");
        root = tmp.resolve("root");
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        newBoot();
        section = new LinkedHashMap<>();
        section.put("scontrol", slurm.scontrol.toString());
        section.put("sinfo", slurm.sinfo.toString());
        section.put("command_timeout", Duration.ofSeconds(5));
        section.put("repair", "reboot");
        slurm.node(NODE, "IDLE", null);
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** The node "reboots": the kernel has a new boot id. */
    void newBoot() throws IOException {
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), UUID.randomUUID() + "\n");
    }

    /** A fatal XID as gpu.xid reports it: latched, remedy reboot, Slurm FAIL. */
    static Finding xid() {
        return new Finding("xid", Entity.gpu(1, "0000:3b:00.0"), Severity.FAIL, XID, Remedy.REBOOT, SlurmState.FAIL, Map.of(), true);
    }

    static Finding finding(String check, Remedy remedy, boolean latched) {
        return new Finding(check, Entity.NODE, Severity.FAIL, check + " failed", remedy, null, Map.of(), latched);
    }

    static Verdict verdict(Finding... findings) {
        List<CheckResult> checks = new ArrayList<>();
        for (Finding f : findings) {
            checks.add(new CheckResult(f.check(), "test.probe", Set.of(), CheckStatus.COMPLETED, f.severity(), 1, List.of(f), List.of(), null));
        }
        return verdict(checks);
    }

    static Verdict verdict(List<CheckResult> checks) {
        List<CheckResult> all = new ArrayList<>(checks);
        all.add(new CheckResult("root-fs", "disk.usage", Set.of(), CheckStatus.COMPLETED, Severity.PASS, 1,
                List.of(Finding.of("root-fs", Entity.NODE, Severity.PASS, "ok")), List.of(), null));
        return SeverityPolicy.STANDARD.verdict(NODE, Instant.now(), 5, all);
    }

    Plan plan() {
        List<CheckConfig> checks = new ArrayList<>();
        for (String name : List.of("root-fs", "xid", "klog", "fabric", "gpu", "app")) {
            checks.add(new CheckConfig(name, "test.probe", new Location("nhc.yaml", 1, 1), HostSelector.all(), Params.empty(),
                    null, null, null, null, null, 1, null, null, null, null));
        }
        Settings settings = new Settings(new Params(Map.of("root", root.toString())));
        return new Plan(new Config(Path.of("/etc/nhc/nhc.yaml"), settings, Map.of(), checks, Map.of("slurm", new Params(section)),
                Set.of("slurm")), List.of());
    }

    ActionOutcome run(Verdict v) throws IOException {
        StateStore store = new StateStore(stateDir, false);
        SlurmAction action = new SlurmAction(Map.of(), Clock.fixed(now, ZoneOffset.UTC), Duration.ofMillis(10));
        last = action.apply(v, plan(), store, NODE, now.plusSeconds(40));
        store.flush();
        now = now.plusSeconds(10);
        return last;
    }

    String said() {
        return String.join("\n", last.lines());
    }

    RepairRecord record() {
        return new RepairRecord(new StateStore(stateDir, false).section(SlurmSection.KEY));
    }

    List<History.Event> events() {
        return History.read(new StateStore(stateDir, false).section(History.SECTION)).entries().stream().map(History.Entry::event).toList();
    }

    static List<String> reboot(String reason) {
        return List.of("scontrol", "reboot", "ASAP", "nextstate=DOWN", "reason=" + reason, NODE);
    }

    static List<String> update(String... args) {
        List<String> argv = new ArrayList<>(List.of("scontrol", "update"));
        argv.addAll(List.of(args));
        return argv;
    }

    static String reason(int n) {
        return "NHC: xid: reboot " + n + " of 2: " + XID;
    }

    /** One whole rung: the reboot asked for, Slurm doing it, the new boot, slurmd registering, nhc's re-check. */
    void rebootAndRecheck(int n) throws IOException {
        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(n))), slurm.reboots());
        slurm.rebootIssued(NODE);
        newBoot();
        run(verdict()); // slurmd's health check on the new boot, before it registers: the latch is gone
        slurm.rebootComplete(NODE);
        run(verdict());
        slurm.forgetCalls();
    }

    // ---- the rungs -----------------------------------------------------------------------------

    @Test
    void aLatchedFaultWhoseRemedyIsARebootAsksSlurmToRebootTheNodeWhenItsJobsEnd() throws IOException {
        run(verdict(xid()));

        assertEquals(List.of(reboot(reason(1))), slurm.reboots());
        assertEquals(List.of(), slurm.updates(), "the reboot ASAP drains the node itself: no DRAIN or FAIL beside it");
        assertEquals("IDLE+DRAIN+REBOOT_REQUESTED", slurm.state(NODE));
        assertEquals(reason(1), slurm.reason(NODE));
        assertEquals(List.of("reboot"), last.changes());
        assertEquals(RepairRecord.Rung.REBOOTING, record().rung());
        assertEquals(Set.of("xid: GPU 1 (0000:3b:00.0)"), record().faults());
        assertEquals(List.of(History.Event.VERDICT, History.Event.REBOOT_REQUESTED), events());
        assertTrue(said().contains("asked Slurm to reboot node gpu-001 when its jobs end (reboot 1 of 2)"), said());
    }

    @Test
    void whileSlurmWaitsForTheJobsNhcLeavesItsRebootAloneWhateverTheVerdict() throws IOException {
        run(verdict(xid()));
        slurm.node(NODE, "MIXED+DRAIN+REBOOT_REQUESTED", reason(1));
        slurm.forgetCalls();

        run(verdict(xid()));
        run(verdict());
        slurm.rebootIssued(NODE);
        run(verdict(xid()));

        assertEquals(List.of(), slurm.reboots());
        assertEquals(List.of(), slurm.updates());
        assertEquals(RepairRecord.Rung.REBOOTING, record().rung(), "the same boot: no reboot seen yet");
        assertTrue(said().contains("is in the reboot nhc asked for"), said());
    }

    @Test
    void onTheNewBootTheFirstRunReChecksAndNhcResumesOnlyAHealthyNode() throws IOException {
        run(verdict(xid()));
        slurm.rebootIssued(NODE);
        newBoot();
        slurm.forgetCalls();

        String before = record().bootId();
        run(verdict()); // before slurmd registers
        assertEquals(List.of(), slurm.updates(), "Slurm still completes the reboot: nothing to do for a healthy node");
        assertEquals(RepairRecord.Rung.REBOOTED, record().rung());
        History.Entry seen = History.read(new StateStore(stateDir, false).section(History.SECTION)).entries().get(3);
        assertTrue(seen.detail().startsWith("boot id " + before + " -> " + Files.readString(root.resolve("proc/sys/kernel/random/boot_id")).strip()
                + "; Slurm shows DOWN+DRAIN+REBOOT_ISSUED"), seen.detail());

        slurm.rebootComplete(NODE);
        assertEquals("DOWN", slurm.state(NODE), "nextstate=DOWN: Slurm keeps the node out after the reboot");
        run(verdict());
        assertEquals(List.of(update("NodeName=" + NODE, "State=RESUME")), slurm.updates());
        assertEquals("IDLE", slurm.state(NODE));
        assertNull(record().rung());
        assertEquals(1, record().reboots().size(), "the reboot still counts within the window");
        assertEquals(List.of(History.Event.VERDICT, History.Event.REBOOT_REQUESTED, History.Event.VERDICT, History.Event.REBOOT_SEEN,
                History.Event.RESUME), events());
    }

    @Test
    void aNodeDownAfterItsRebootIsNotResumedWhileItsChecksOnlyWarnOrFail() throws IOException {
        run(verdict(xid()));
        slurm.rebootIssued(NODE);
        newBoot();
        run(verdict());
        slurm.rebootComplete(NODE);
        slurm.forgetCalls();

        Finding warn = new Finding("root-fs", Entity.NODE, Severity.WARN, "85% full", Remedy.NONE, null, Map.of());
        run(verdict(warn));
        assertEquals(List.of(), slurm.updates());
        assertEquals("DOWN", slurm.state(NODE));

        run(verdict(finding("root-fs", Remedy.NONE, false)));
        assertEquals(List.of(update("NodeName=" + NODE, "State=DRAIN", "Reason=NHC: root-fs: root-fs failed")), slurm.updates(),
                "a fault a reboot does not repair: nhc's own DRAIN, so that the node stays nhc's to resume");
        assertEquals("DOWN+DRAIN", slurm.state(NODE));
    }

    @Test
    void theSameFaultBackAfterTwoRebootsFailsTheNodeForItsPart() throws IOException {
        rebootAndRecheck(1);
        rebootAndRecheck(2);

        run(verdict(xid()));

        String recurred = "NHC: xid: recurred after 2 reboots: replace the part: " + XID;
        assertEquals(List.of(), slurm.reboots());
        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=" + recurred)), slurm.updates());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertEquals(RepairRecord.Rung.FAILED, record().rung());
        assertEquals(List.of("fail", "recurred"), last.changes());

        slurm.forgetCalls();
        run(verdict(xid()));
        assertEquals(List.of(), slurm.updates(), "the reason stays as it was: no flapping, no third reboot");
        assertEquals(List.of(), slurm.reboots());
    }

    @Test
    void aFaultStillThereOnTheNewBootFailsTheNodeBeforeSlurmdRegistersAndClimbsOn() throws IOException {
        run(verdict(xid()));
        slurm.rebootIssued(NODE);
        newBoot();
        slurm.forgetCalls();

        run(verdict(xid())); // slurmd's first health check on the new boot: the GPU is still gone
        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=NHC: xid: " + XID)), slurm.updates(),
                "FAIL, which the reboot's completion keeps: a DRAIN set now Slurm would clear");
        assertEquals(RepairRecord.Rung.REBOOTED, record().rung());

        // slurmd registered: the FAIL held, and slurmctld appended to its reason (as 22.05 does)
        slurm.node(NODE, "IDLE+FAIL", "NHC: xid: " + XID + " : reboot complete");
        slurm.forgetCalls();
        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(2))), slurm.reboots(), "the next rung, on the node nhc failed");
    }

    @Test
    void aFaultBackOnItsLastNewBootIsFailedForThePartBeforeSlurmdRegisters() throws IOException {
        rebootAndRecheck(1);
        run(verdict(xid()));
        slurm.rebootIssued(NODE);
        newBoot();
        slurm.forgetCalls();

        run(verdict(xid()));
        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=NHC: xid: recurred after 2 reboots: replace the part: " + XID)),
                slurm.updates());
        assertEquals(RepairRecord.Rung.FAILED, record().rung());
        assertEquals(List.of("fail", "recurred"), last.changes());

        // slurmd registered (ReturnToService=2): the FAIL held, and slurmctld appended to nhc's reason
        String recurred = "NHC: xid: recurred after 2 reboots: replace the part: " + XID;
        slurm.node(NODE, "IDLE+FAIL", recurred + " : reboot complete");
        slurm.forgetCalls();
        run(verdict(xid()));
        assertEquals(List.of(update("NodeName=" + NODE, "Reason=" + recurred)), slurm.updates(), "still nhc's FAIL: its reason back");
        assertEquals(RepairRecord.Rung.FAILED, record().rung());
        assertTrue(!events().contains(History.Event.TOOK_OVER), events().toString());

        run(verdict()); // the part replaced, `nhc clear xid`
        assertEquals("IDLE", slurm.state(NODE), "nhc resumes the FAIL it set");
    }

    @Test
    void whenSlurmReturnsTheNodeItselfAfterTheRebootTheRebootStillCounts() throws IOException {
        run(verdict(xid()));
        slurm.rebootIssued(NODE);
        newBoot();
        run(verdict());
        slurm.node(NODE, "IDLE", null); // ReturnToService=2: slurmctld resumed the node when slurmd registered
        slurm.forgetCalls();

        run(verdict());
        assertEquals(List.of(), slurm.updates());
        assertNull(record().rung());
        assertTrue(events().contains(History.Event.RETURNED_TO_SERVICE), events().toString());

        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(2))), slurm.reboots());
    }

    @Test
    void aRebootSomeoneCancelledIsNotAskedForAgainInThatBoot() throws IOException {
        run(verdict(xid()));
        slurm.node(NODE, "IDLE", null); // scontrol cancel_reboot: Slurm also drops the ASAP drain
        slurm.forgetCalls();

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots());
        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=NHC: xid: " + XID)), slurm.updates(),
                "held as any failing node is, by the finding's own state");
        assertTrue(said().contains("someone cancelled the reboot nhc asked for in this boot"), said());
        assertTrue(events().contains(History.Event.TOOK_OVER), events().toString());

        newBoot();
        slurm.forgetCalls();
        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(2))), slurm.reboots(), "a new boot: the ladder goes on");
    }

    @Test
    void theCircuitBreakerBoundsHowManyNodesNhcHasRebootingAtOnce() throws IOException {
        section.put("max_rebooting_fraction", 0.25);
        slurm.node("gpu-002", "DOWN+DRAIN+REBOOT_ISSUED", "NHC: xid: reboot 1 of 2: GPU 0: XID 79 : reboot issued");
        slurm.node("gpu-003", "IDLE", null);
        slurm.node("gpu-004", "IDLE", null);

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots());
        assertEquals(List.of(update("NodeName=" + NODE, "State=FAIL", "Reason=NHC: xid: " + XID)), slurm.updates(),
                "held meanwhile");
        assertEquals(List.of("reboot_deferred", "fail"), last.changes());
        assertTrue(said().contains("no reboot: circuit breaker open: 1 of 4 nodes of the cluster are already rebooting by nhc"), said());
        assertEquals(1, slurm.calls().stream().filter(c -> c.size() == 4 && c.get(1).equals("show")).count(),
                "both breakers count from one answer");

        slurm.node("gpu-002", "IDLE", null);
        slurm.forgetCalls();
        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(1))), slurm.reboots(), "on top of nhc's FAIL once the others are back");
        assertEquals("IDLE+FAIL+DRAIN+REBOOT_REQUESTED", slurm.state(NODE));
    }

    @Test
    void rebootsOlderThanTheWindowDoNotCount() throws IOException {
        section.put("reboot_window", Duration.ofHours(1));
        rebootAndRecheck(1);
        rebootAndRecheck(2);
        now = now.plus(Duration.ofHours(2));

        run(verdict(xid()));
        assertEquals(List.of(reboot(reason(1))), slurm.reboots());
    }

    @Test
    void aGpuResetRemedyGetsARebootOnlyWhenTheConfigAllowsIt() throws IOException {
        Finding reset = new Finding("xid", Entity.gpu(1, null), Severity.FAIL, "GPU 1: XID 48 (double bit ECC error)", Remedy.RESET_GPU,
                null, Map.of(), true);
        run(verdict(reset));
        assertEquals(List.of(), slurm.reboots());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertTrue(said().contains("its remedy is a GPU reset, which nhc cannot do (set slurm.reset_gpu_by_reboot: true"), said());

        section.put("reset_gpu_by_reboot", true);
        slurm.forgetCalls();
        run(verdict(reset));
        assertEquals(1, slurm.reboots().size());
    }

    // ---- never ---------------------------------------------------------------------------------

    @Test
    void neverWhenTheLadderIsOff() throws IOException {
        section.remove("repair");
        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
    }

    @Test
    void neverForAnApplicationFault() throws IOException {
        run(verdict(xid(), finding("app", Remedy.RESTART_APP, true)));
        assertEquals(List.of(), slurm.reboots());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertTrue(said().contains("app: node: an application fault"), said());
    }

    @Test
    void neverForAFaultThatIsNotLatched() throws IOException {
        run(verdict(finding("gpu", Remedy.REBOOT, false)));
        assertEquals(List.of(), slurm.reboots());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        assertTrue(said().contains("no failing finding is a fault latched until reboot"), said());
    }

    @Test
    void neverForACheckThatTimedOutEvenBesideALatchedFault() throws IOException {
        Finding hung = new Finding("gpu", Entity.NODE, Severity.FAIL, "timed out after 30s", Remedy.REBOOT, null, Map.of());
        Verdict v = verdict(List.of(
                new CheckResult("xid", "gpu.xid", Set.of(), CheckStatus.COMPLETED, Severity.FAIL, 1, List.of(xid()), List.of(), null),
                new CheckResult("gpu", "gpu.health", Set.of(), CheckStatus.TIMED_OUT, Severity.FAIL, 30000, List.of(hung), List.of(), null)));
        run(v);
        assertEquals(List.of(), slurm.reboots());
        assertTrue(said().contains("check gpu timed out: nhc never reboots for a check that did not finish"), said());
    }

    @Test
    void neverForACheckThatCouldNotDecide() throws IOException {
        // on_unknown: fail makes an undecided check fail; it names no remedy, and nothing of it is latched
        Finding unknown = finding("gpu", Remedy.NONE, false);
        run(verdict(xid(), unknown));
        assertEquals(List.of(), slurm.reboots());
        assertTrue(said().contains("it names no remedy a reboot would apply"), said());
    }

    @Test
    void neverForANodeAnAdminHolds() throws IOException {
        slurm.node(NODE, "IDLE+DRAIN", "ticket 4711: replacing GPU 1");
        run(verdict(xid()));
        assertEquals(List.of("show"), slurm.calls().stream().map(c -> c.get(1)).distinct().toList(), "nhc only looked");
        assertEquals("ticket 4711: replacing GPU 1", slurm.reason(NODE));
    }

    @Test
    void anAdminWhoTakesTheRebootOverHasTheNode() throws IOException {
        run(verdict(xid()));
        slurm.node(NODE, "MIXED+DRAIN+REBOOT_REQUESTED", "ticket 4712: mine now");
        slurm.forgetCalls();

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots());
        assertEquals(List.of(), slurm.updates());
        assertNull(record().rung());
        assertTrue(events().contains(History.Event.TOOK_OVER), events().toString());

        slurm.rebootIssued(NODE);
        newBoot();
        slurm.rebootComplete(NODE);
        run(verdict());
        assertEquals(List.of(), slurm.updates(), "not nhc's to resume");
    }

    @Test
    void neverWhenTheRecordOfEarlierRebootsWasDamaged() throws IOException {
        rebootAndRecheck(1);
        rebootAndRecheck(2);
        Path file = stateDir.resolve("slurm.json");
        Files.writeString(file, Files.readString(file).replace("\"repair_reboots\"", "\"repair_reboots\": 7, \"x\""));
        Files.deleteIfExists(stateDir.resolve("slurm.json.prev"));

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots(), "nhc cannot count the reboots before: it asks for none");
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertTrue(said().contains("holds values nhc never writes (repair_reboots is not a list"), said());
        assertTrue(said().contains("no reboot: nhc's Slurm record was lost or damaged on"), said());

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots(), "the mark outlives the run that found the damage");
    }

    /** A wiped state directory is no fresh start for the ladder: the node nhc FAILed for its part is not rebooted again. */
    @Test
    void neverWhenTheRecordOfEarlierRebootsIsGone() throws IOException {
        rebootAndRecheck(1);
        rebootAndRecheck(2);
        run(verdict(xid()));
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        slurm.forgetCalls();
        try (var files = Files.walk(stateDir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        newBoot();

        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots(), "nhc cannot count the reboots before: it asks for none");
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertTrue(said().contains("nhc treats the drain as its own"), said());
    }

    @Test
    void aFailKeptWhileSlurmWasUnreachableIsAppliedAsItWasMeantNotAsAReboot() throws IOException {
        slurm.down(true);
        section.put("retries", 0L);
        run(verdict(xid()));
        assertEquals(List.of(), slurm.updates());
        slurm.down(false);

        run(verdict()); // the latch is still there on this boot, but this run's verdict has no fault to reboot for
        assertEquals(List.of(), slurm.reboots(), "the ladder is for this run's verdict, not for one kept from before");
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertTrue(said().contains("applying the fail intended"), said());
        assertTrue(!said().contains("no reboot:"), "no ladder decision on a verdict without a fault: " + said());
        assertNull(record().rung());
    }

    @Test
    void neverWhenTheBootIdCannotBeRead() throws IOException {
        Files.delete(root.resolve("proc/sys/kernel/random/boot_id"));
        run(verdict(xid()));
        assertEquals(List.of(), slurm.reboots());
        assertEquals("IDLE+FAIL", slurm.state(NODE));
        assertTrue(said().contains("this boot's id cannot be read"), said());
    }
}
