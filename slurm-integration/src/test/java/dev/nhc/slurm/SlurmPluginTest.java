package dev.nhc.slurm;

import dev.nhc.daemon.DaemonContext;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Params;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Slurm action inside the daemon: applied when the verdict changes, re-checked every interval only while nhc holds the node. */
class SlurmPluginTest {
    private static final String NODE = "gpu-001";

    @TempDir
    Path tmp;
    FakeSlurm slurm;
    StateStore state;
    final List<String> log = new ArrayList<>();
    /** The plugin's clock; the action under it runs scontrol in real time, within a deadline from this. */
    Instant now = Instant.now();
    SlurmPlugin plugin;

    @BeforeEach
    void setUp() throws IOException {
        slurm = new FakeSlurm(tmp.resolve("slurm"));
        state = new StateStore(tmp.resolve("state"));
        slurm.node(NODE, "IDLE", null);
        SlurmAction action = new SlurmAction(Map.of(), Clock.systemUTC(), Duration.ofMillis(10));
        plugin = new SlurmPlugin(action, new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now;
            }
        });
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("interval", Duration.ofSeconds(60));
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("scontrol", slurm.scontrol.toString());
        section.put("sinfo", slurm.sinfo.toString());
        Plan plan = SlurmActionTest.plan(section).withSettings(new Settings(new Params(settings)));
        plugin.start(new DaemonContext() {
            @Override
            public Verdict verdict() {
                return null;
            }

            @Override
            public Plan plan() {
                return plan;
            }

            @Override
            public dev.nhc.engine.policy.SeverityPolicy policy() {
                return dev.nhc.engine.policy.SeverityPolicy.STANDARD;
            }

            @Override
            public String node() {
                return NODE;
            }

            @Override
            public StateStore state() {
                return state;
            }

            @Override
            public void recheckAll() {
            }

            @Override
            public void log(String line) {
                log.add(line);
            }
        });
    }

    private int calls() throws IOException {
        return slurm.calls().size();
    }

    @Test
    void aFailingVerdictDrainsAtOnceAndAnUnchangedOneAsksNothingUntilTheInterval() throws IOException {
        Verdict failing = SlurmActionTest.verdict(SlurmActionTest.failHw("xid", "GPU 3: XID 79 (GPU has fallen off the bus)"));
        plugin.verdict(failing, true);
        assertEquals("IDLE+FAIL", slurm.state(NODE), "a hardware fault asks for FAIL");
        assertTrue(log.stream().anyMatch(l -> l.contains("set node " + NODE + " to FAIL")), log.toString());

        int before = calls();
        now = now.plusSeconds(1);
        plugin.verdict(failing, false);
        assertEquals(before, calls(), "the same verdict a second later is not news");

        now = now.plusSeconds(60);
        plugin.verdict(failing, false);
        assertEquals(before + 1, calls(), "every interval, one look at a node nhc holds");
    }

    @Test
    void aHealthyNodeNhcDoesNotHoldCostsSlurmNothingAfterItsFirstLook() throws IOException {
        Verdict passing = SlurmActionTest.passing();
        plugin.verdict(passing, true);
        assertEquals(1, calls(), "no record of what nhc did to this node yet: one look, as a first run");
        now = now.plusSeconds(120);
        plugin.verdict(passing, false);
        plugin.verdict(SlurmActionTest.verdict(SlurmActionTest.of(Severity.WARN, "load", "high")), true);
        plugin.verdict(passing, true);
        assertEquals(1, calls(), "then nothing: the record says nhc holds nothing");
    }

    @Test
    void aDrainOfNhcsWhoseRecordWasLostIsTakenBackAndResumedOnceHealthy() throws IOException {
        // nhc drained the node, then its state directory was lost (a reinstall, a wiped disk) before the daemon started.
        slurm.node(NODE, "IDLE+DRAIN", "NHC: root-fs: used 97% of /");
        // A restarted daemon restores its last verdict, so the first one it hands over is no change.
        plugin.verdict(SlurmActionTest.passing(), false);
        assertEquals("IDLE", slurm.state(NODE), "the reason is nhc's own: nhc resumes it");

        slurm.node(NODE, "IDLE+DRAIN", "maintenance");
        now = now.plusSeconds(120);
        plugin.verdict(SlurmActionTest.passing(), true);
        assertEquals("IDLE+DRAIN", slurm.state(NODE), "an admin's drain is never nhc's");
    }

    @Test
    void aRecoveredNodeIsResumedWhenTheVerdictChanges() throws IOException {
        plugin.verdict(SlurmActionTest.verdict(SlurmActionTest.fail("root-fs", "used 97% of /")), true);
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        now = now.plusSeconds(5);
        plugin.verdict(SlurmActionTest.passing(), true);
        assertEquals("IDLE", slurm.state(NODE));
    }

    /** Issue 17 item 3: the store knows nhc holds the node, so that a check whose latches were lost keeps it out. */
    @Test
    void theStateStoreIsToldWhileNhcHoldsTheNodeAndNoLongerOnceItResumedIt() throws IOException {
        assertEquals(null, state.section("check.xid").heldBecause());
        plugin.verdict(SlurmActionTest.verdict(SlurmActionTest.failHw("xid", "GPU 3: XID 79 (GPU has fallen off the bus)")), true);
        assertEquals("nhc's Slurm record says it set node gpu-001 to FAIL", state.section("check.xid").heldBecause());
        now = now.plusSeconds(5);
        plugin.verdict(SlurmActionTest.passing(), true);
        assertEquals("IDLE", slurm.state(NODE));
        assertEquals(null, state.section("check.xid").heldBecause());
    }
}
