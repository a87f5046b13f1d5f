package dev.nhc.slurm;

import dev.nhc.engine.state.StateDamage;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.engine.policy.SeverityPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 3 for nhc's Slurm record ({@code slurm.json}): after the run that drained the node
 * for a latched XID, the record cut at every offset of its file or its copy, or a write of it
 * stopped at every step, never resumes the node, whether the next run still sees the latch (fail)
 * or lost it (unknown); and the record still says nhc holds the node, which a check that lost its
 * latches needs to keep the node out ({@link SlurmAction#holds}). That the checks' verdicts are
 * fail or unknown after such damage is LatchSurvivesStateDamageTest's (checks).
 */
class LedgerDamageTest {
    private static final String NODE = "gpu-001";
    private static final String HELD = "nhc's Slurm record says it set node gpu-001 to DRAIN";

    @TempDir
    Path tmp;
    private FakeSlurm slurm;
    private Path stateDir;
    private final Map<String, Object> section = new LinkedHashMap<>();
    private Instant now = Instant.parse("2026-11-22T04:00:00Z");

    @BeforeEach
    void setUp() throws Exception {
        slurm = new FakeSlurm(tmp.resolve("slurm"));
        stateDir = tmp.resolve("state");
        section.put("scontrol", slurm.scontrol.toString());
        section.put("sinfo", slurm.sinfo.toString());
        section.put("command_timeout", Duration.ofSeconds(5));
        slurm.node(NODE, "IDLE", null);
    }

    private static Verdict latched() {
        return SlurmActionTest.verdict(SlurmActionTest.fail("xid", "GPU 0: XID 79 (GPU has fallen off the bus)"));
    }

    /** What gpu.xid says when its latches were lost and nothing says nhc holds the node. */
    private static Verdict lost() {
        Finding f = new Finding("xid", Entity.NODE, Severity.UNKNOWN, "latched XIDs could not be read back from the check's state",
                Remedy.NONE, null, Map.of());
        CheckResult c = new CheckResult("xid", "gpu.xid", Set.of(), CheckStatus.COMPLETED, Severity.UNKNOWN, 1, List.of(f), List.of(), null);
        return SeverityPolicy.STANDARD.verdict(NODE, Instant.now(), 5, List.of(c));
    }

    private SlurmAction action() {
        return new SlurmAction(Map.of(), Clock.fixed(now, ZoneOffset.UTC), Duration.ofMillis(10));
    }

    /** One run, as the CLI makes it: the action on this store, then the flush. */
    private void run(Verdict v, StateStore store) throws Exception {
        action().apply(v, SlurmActionTest.plan(section), store, NODE, now.plusSeconds(40));
        store.flush();
        now = now.plusSeconds(10);
    }

    private void run(Verdict v) throws Exception {
        run(v, new StateStore(stateDir, false));
    }

    private boolean resumed() throws Exception {
        return slurm.updates().stream().anyMatch(c -> c.contains("State=RESUME"));
    }

    @Test
    void everyCutOfTheRecordOrItsCopyAfterTheDrainKeepsTheNodeHeldAndOutOfService() throws Exception {
        run(latched());
        assertEquals("IDLE+DRAIN", slurm.state(NODE));
        Map<String, byte[]> drained = StateDamage.snapshot(stateDir);
        Map<String, String> judged = new LinkedHashMap<>();
        for (String file : List.of("slurm.json", "slurm.json.prev")) {
            byte[] whole = drained.get(file);
            for (int offset = 0; offset < whole.length; offset++) {
                StateDamage.restore(stateDir, drained);
                Files.write(stateDir.resolve(file), Arrays.copyOf(whole, offset));
                StateStore store = new StateStore(stateDir, false);
                String at = file + " cut to " + offset + " bytes";
                assertEquals(HELD, action().holds(store, NODE), at + ": the other copy still says so");
                StateSection read = store.section(SlurmSection.KEY);
                if (judged.putIfAbsent(read.snapshot() + " lost: " + read.lostBecause(), at) == null) {
                    for (Verdict v : List.of(lost(), latched())) {
                        slurm.forgetCalls();
                        run(v);
                        assertTrue(!resumed() && slurm.state(NODE).equals("IDLE+DRAIN"), at + ", then " + v.severity() + ": "
                                + slurm.updates() + " " + slurm.state(NODE));
                        StateDamage.restore(stateDir, drained);
                        Files.write(stateDir.resolve(file), Arrays.copyOf(whole, offset));
                    }
                }
            }
        }
        assertTrue(!judged.isEmpty(), judged.toString());
    }

    @Test
    void aRecordWriteStoppedAtAnyStepOfTheDrainNeverResumesAndTheNextRunDrains() throws Exception {
        for (int k = 0; k <= StateDamage.steps(); k++) {
            String at = "the record's write stopped before " + StateDamage.step(k);
            clean();
            slurm.node(NODE, "IDLE", null);
            StateStore dying = StateDamage.stoppingAt(stateDir, k, SlurmSection.KEY);
            try {
                run(latched(), dying);
            } catch (RuntimeException killed) {
                assertTrue(StateDamage.stopped(dying), killed.toString());
            }
            // the intent is written before scontrol is called: a kill at any step of it comes before the drain
            assertEquals(k < StateDamage.steps() ? "IDLE" : "IDLE+DRAIN", slurm.state(NODE), at);
            String holds = action().holds(new StateStore(stateDir, false), NODE);
            if (k == StateDamage.steps()) {
                assertEquals(HELD, holds, at);
            } else if (k > StateDamage.stepIndex("WRITE_TEMP")) {
                assertEquals("nhc's Slurm record says it means to set node gpu-001 to DRAIN", holds,
                        at + ": the whole intent, in its file or in the temp file the kill left");
            }
            run(lost());
            assertTrue(!resumed(), at + ", then unknown: " + slurm.updates());
            run(latched());
            assertEquals("IDLE+DRAIN", slurm.state(NODE), at + ", then the latch again: drained");
            run(lost());
            assertTrue(!resumed() && slurm.state(NODE).equals("IDLE+DRAIN"), at + ", then unknown again: " + slurm.updates());
        }
    }

    @Test
    void withEveryStateFileGoneAnNhcDrainIsFoundByItsReasonAndAnUnknownRunKeepsIt() throws Exception {
        run(latched());
        clean();
        slurm.forgetCalls();
        run(lost());
        assertTrue(!resumed() && slurm.state(NODE).equals("IDLE+DRAIN"), slurm.updates().toString());
        assertEquals(HELD, action().holds(new StateStore(stateDir, false), NODE), "the record, rebuilt from Slurm: nhc's drain");
    }

    private void clean() throws Exception {
        if (Files.isDirectory(stateDir)) {
            try (Stream<Path> files = Files.list(stateDir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
