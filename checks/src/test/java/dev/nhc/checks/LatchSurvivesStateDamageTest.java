package dev.nhc.checks;

import dev.nhc.checks.gpu.xid.GpuXidProbe;
import dev.nhc.checks.host.KernelLogProbe;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateDamage;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 3 through the probes that latch, as {@code nhc run} runs them: {@code gpu.xid} and
 * {@code kernel.log} latch a fault from /dev/kmsg in a run that follows one without it (so the file
 * written before the latch is there to fall back to), and then their state is damaged: every file
 * cut at every offset, the latching write stopped at every step, files deleted. The check never
 * passes, not even when the kernel's ring buffer has moved past the fault; and once the source is
 * read again (the record still in the ring buffer) the latch is back.
 *
 * <p>Every cut is loaded by a fresh store; what the check is handed (its state's values and why it
 * was lost) decides the run, so each different thing read back is judged by a whole run, the
 * first cut that gives it: a cut at every offset of a 1 KB file costs a few distinct runs, not a
 * thousand.
 */
class LatchSurvivesStateDamageTest {
    @TempDir
    Path root;

    /** A latching probe and a kernel record it latches. */
    enum Latching {
        XID("gpu.xid", GpuXidProbe::new, "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python3, GPU has fallen off the bus."),
        KERNEL_LOG("kernel.log", KernelLogProbe::new, "EXT4-fs (nvme0n1p2): Remounting filesystem read-only");

        final String use;
        final Supplier<Probe> probe;
        final String record;

        Latching(String use, Supplier<Probe> probe, String record) {
            this.use = use;
            this.probe = probe;
            this.record = record;
        }
    }

    private static final String CHECK = "latching";
    private static final String BEFORE = "6,1,1000000,-;usb 1-1: new high-speed USB device\n";
    private static final String AFTER = "6,3,3000000,-;usb 1-1: USB disconnect\n";

    private Pipeline pipeline;
    private Plan plan;

    private Path state() {
        return root.resolve("var/lib/nhc");
    }

    private Path kmsg() {
        return root.resolve("dev/kmsg");
    }

    /** kmsg with the fault's record, as the ring buffer holds it until it moves on. */
    private void sourceHolds(Latching l) throws Exception {
        Files.writeString(kmsg(), BEFORE + "3,2,2000000,-;" + l.record + "\n");
    }

    /** kmsg moved on: the fault's record is gone, only the state remembers it. */
    private void sourceMovedOn() throws Exception {
        Files.writeString(kmsg(), AFTER);
    }

    /** A passing run, then the latching run through {@code latching}: the state files as it left them. */
    private Map<String, byte[]> latch(Latching l, StateStore latching) throws Exception {
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-1\n");
        Files.createDirectories(kmsg().getParent());
        pipeline = new Pipeline(root, l.probe.get()).settings("nvml_library: " + root.resolve("no-nvml/libnvidia-ml.so.1"));
        plan = pipeline.plan("- { name: " + CHECK + ", use: " + l.use + ", with: { log: kmsg } }");
        Files.writeString(kmsg(), BEFORE);
        assertEquals(Severity.PASS, severity(run()), "before the fault");
        sourceHolds(l);
        Verdict v = pipeline.run(plan, latching);
        StateDamage.flushUntilStopped(latching);
        if (!StateDamage.stopped(latching)) {
            assertEquals(Severity.FAIL, severity(v), "the latching run: " + findings(v));
        }
        return StateDamage.snapshot(state());
    }

    private Verdict run() {
        return pipeline.run(plan, new StateStore(state(), false));
    }

    private static Severity severity(Verdict v) {
        return Pipeline.severity(v, CHECK);
    }

    private static String findings(Verdict v) {
        return Pipeline.findings(v, CHECK).stream().map(Finding::message).toList().toString();
    }

    /**
     * Cuts each of {@code files} at every offset (the rest of the directory as {@code left} holds
     * it) and judges the run after it, once for each different thing the state reads back.
     */
    private void everyCut(Map<String, byte[]> left, List<String> files, Source source, Set<Severity> expected) throws Exception {
        Map<String, String> judged = new LinkedHashMap<>();
        int cuts = 0;
        StateDamage.restore(state(), left);
        for (String file : files) {
            byte[] whole = left.get(file);
            for (int offset = 0; offset < whole.length; offset++) {
                Files.write(state().resolve(file), Arrays.copyOf(whole, offset)); // loading writes nothing: the rest is as left
                cuts++;
                StateSection read = new StateStore(state(), false).section("check." + CHECK);
                String at = file + " cut to " + offset + " bytes";
                if (judged.putIfAbsent(read.snapshot() + " lost: " + read.lostBecause(), at) == null) {
                    source.put();
                    Verdict v = run();
                    assertTrue(expected.contains(severity(v)), at + ": " + severity(v) + ", not one of " + expected + ": " + findings(v));
                    StateDamage.restore(state(), left);
                }
            }
            Files.write(state().resolve(file), whole);
        }
        assertTrue(cuts > 100 && !judged.isEmpty(), cuts + " cuts, judged: " + judged.values());
    }

    /** What the kernel's ring buffer holds for the run after the damage. */
    private interface Source {
        void put() throws Exception;
    }

    @ParameterizedTest
    @EnumSource(Latching.class)
    void theFileOrItsCopyCutAtAnyOffsetAfterTheLatchingRunStillFailsWithTheSourceGone(Latching l) throws Exception {
        Map<String, byte[]> latched = latch(l, new StateStore(state(), false));
        everyCut(latched, List.of("check." + CHECK + ".json", "check." + CHECK + ".json.prev"), this::sourceMovedOn, Set.of(Severity.FAIL));
    }

    @ParameterizedTest
    @EnumSource(Latching.class)
    void aLatchingWriteStoppedAtAnyStepNeverPassesAndTheLatchIsBackOnceTheSourceIsReadAgain(Latching l) throws Exception {
        for (int k = 0; k <= StateDamage.steps(); k++) {
            clean();
            Map<String, byte[]> left = latch(l, StateDamage.stoppingAt(state(), k));
            String at = "stopped before " + StateDamage.step(k);
            sourceMovedOn();
            Verdict gone = run();
            assertNotEquals(Severity.PASS, severity(gone), at + ", the record gone: " + findings(gone));
            StateDamage.restore(state(), left);
            sourceHolds(l);
            Verdict back = run();
            assertEquals(Severity.FAIL, severity(back), at + ", the record still in the ring buffer: " + findings(back));
        }
    }

    @ParameterizedTest
    @EnumSource(Latching.class)
    void theTempFileOfAWriteKilledBeforeItsRenameCutAtAnyOffsetNeverPassesAndTheLatchComesBack(Latching l) throws Exception {
        Map<String, byte[]> left = latch(l, StateDamage.stoppingAt(state(), StateDamage.stepIndex("RENAME_TO_CURRENT")));
        String tmp = left.keySet().stream().filter(n -> n.endsWith(".tmp")).findFirst().orElseThrow();
        // a torn temp file was never the state: from the cursor before it, the record is read again
        everyCut(left, List.of(tmp), () -> sourceHolds(l), Set.of(Severity.FAIL));
        // and with the record gone too: the whole temp file recovered fails; the committed generation before the killed
        // write has a cursor before a record the ring buffer lost, which warns (overwritten records); never a pass
        everyCut(left, List.of(tmp), this::sourceMovedOn, Set.of(Severity.FAIL, Severity.WARN));
    }

    @ParameterizedTest
    @EnumSource(Latching.class)
    void bothFilesDeletedIsLostUnknownWithTheSourceGoneAndFailsOnceTheSourceIsReadAgainFromTheBootsStart(Latching l) throws Exception {
        Map<String, byte[]> latched = latch(l, new StateStore(state(), false));
        deleteSection();
        sourceMovedOn();
        Verdict gone = run();
        assertEquals(Severity.UNKNOWN, severity(gone), findings(gone));
        assertTrue(findings(gone).contains("its files are missing, but generations.journal says generation 1 was written"), findings(gone));

        StateDamage.restore(state(), latched);
        deleteSection();
        sourceHolds(l);
        Verdict back = run();
        assertEquals(Severity.FAIL, severity(back), findings(back));
        assertTrue(findings(back).contains("could not be read back"), "and still says what was lost: " + findings(back));
    }

    @ParameterizedTest
    @EnumSource(Latching.class)
    void everythingDeletedWhileNhcHoldsTheNodeFailsAndIsANewCheckOtherwise(Latching l) throws Exception {
        latch(l, new StateStore(state(), false));
        clean();
        sourceMovedOn();
        StateStore held = new StateStore(state(), false);
        held.nodeHeld("nhc's Slurm record says it set node node001 to DRAIN");
        Verdict v = pipeline.run(plan, held);
        assertEquals(Severity.FAIL, severity(v), findings(v));
        assertTrue(findings(v).contains("while nhc's Slurm record says it set node node001 to DRAIN: the node stays out until reboot"),
                findings(v));

        clean();
        assertEquals(Severity.PASS, severity(run()), "not held, no journal: a check never run before");
    }

    private void deleteSection() throws Exception {
        Files.delete(state().resolve("check." + CHECK + ".json"));
        Files.delete(state().resolve("check." + CHECK + ".json.prev"));
    }

    private void clean() throws Exception {
        if (Files.isDirectory(state())) {
            try (Stream<Path> files = Files.list(state())) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
