package dev.nhc.checks.dcgm;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dcgm.diag judged as {@code nhc run} judges it, against a real executable standing in for dcgmi. */
class DcgmDiagProbeTest {
    @TempDir
    Path tmp;
    Path root;
    FakeDcgmi fake;
    private final DcgmDiagProbe probe = new DcgmDiagProbe();

    @BeforeEach
    void setUp() throws Exception {
        root = tmp.resolve("root");
        Files.createDirectories(root.resolve("proc"));
        fake = new FakeDcgmi(tmp.resolve("bin"));
    }

    private String check(String moreWith) {
        return "- { name: diag, use: dcgm.diag, with: { dcgmi: " + fake.exe + ", level: 2" + moreWith + " } }";
    }

    private Verdict run() throws Exception {
        return run("");
    }

    private Verdict run(String moreWith) throws Exception {
        return new Pipeline(root, probe).run(check(moreWith));
    }

    private static List<Finding> problems(Verdict v) {
        return Pipeline.findings(v, "diag").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    private static Finding node(Verdict v) {
        return Pipeline.about(v, "diag", "node");
    }

    @Test
    void dcgm3FailuresAreJudgedPerGpuAndForTheNode() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        Verdict v = run();
        assertEquals(List.of("diag -r 2 -j"), fake.calls());
        assertEquals(2, problems(v).size(), Pipeline.findings(v, "diag").toString());
        Finding cuda = node(v);
        assertEquals(Severity.FAIL, cuda.severity());
        assertEquals("DCGM diag level 2: test 'CUDA Main Library' failed: Cannot open library libcuda.so.1: no such file", cuda.message());
        Finding mem = Pipeline.about(v, "diag", "GPU 1");
        assertEquals(Severity.FAIL, mem.severity());
        assertEquals("DCGM diag level 2: test 'GPU Memory' failed on GPU 1: GPU 1 DBE detected during memory test", mem.message());
        assertEquals(Severity.PASS, Pipeline.about(v, "diag", "GPU 0").severity());
    }

    @Test
    void dcgm4EntityResultsWithWarningListsAndErrorIds() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_FAIL, 226);
        Verdict v = run();
        assertEquals(List.of("GPU 2", "GPU 5"), problems(v).stream().map(f -> f.entity().label()).toList());
        Finding two = Pipeline.about(v, "diag", "GPU 2");
        assertEquals(Severity.FAIL, two.severity());
        assertEquals("DCGM diag level 2: test 'pcie' failed on GPU 2: GPU 2 PCIe link width x8 is below the expected x16 (DCGM_FR_DBE_PENDING_PAGE_RETIREMENTS, error 83); "
                + "test 'memory' warned on GPU 2: GPU 2 slow memory test", two.message());
        assertEquals(Severity.FAIL, Pipeline.about(v, "diag", "GPU 5").severity());
        Observation summary = Pipeline.result(v, "diag").observations().stream().filter(o -> o.entity().isNode()).findFirst().orElseThrow();
        assertEquals(5L, summary.get("tests")); // pcie 3, memory 1, eud summary 1
        assertEquals(4L, summary.get("tests_run"));
        assertEquals(2L, summary.get("tests_failed"));
    }

    @Test
    void aStatusLineBeforeTheJsonIsIgnored() throws Exception {
        fake.answers(null, "Successfully ran diagnostic for group.\n" + DcgmTestData.DIAG_V3_FAIL, 226);
        assertEquals(2, problems(run()).size());
    }

    @Test
    void dcgm4PassingDiagPasses() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        Verdict v = run();
        assertEquals(List.of(), problems(v));
        assertEquals(CheckStatus.COMPLETED, Pipeline.result(v, "diag").status());
    }

    /** Issue 12 item 7: persistence mode off is configuration, not hardware: warn, never fail and drain. */
    @Test
    void aPersistenceModeOnlyFailureWarns() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PERSISTENCE_ONLY, 226);
        Verdict v = run();
        assertEquals(Severity.WARN, Pipeline.severity(v, "diag"), Pipeline.findings(v, "diag").toString());
        Finding f = Pipeline.about(v, "diag", "GPU 0");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("DCGM diag level 2: test 'software' failed on GPU 0: Persistence mode for GPU 0 is disabled. Enable persistence mode by "
                + "running \"nvidia-smi -i <gpuId> -pm 1 \" as root. (DCGM_FR_PERSISTENCE_MODE, error 29) — a configuration problem, not a hardware fault",
                f.message());
        assertEquals(Severity.WARN, Pipeline.about(v, "diag", "GPU 1").severity());
    }

    @Test
    void persistenceModeInDcgm3sShapeAndInTheTextTableWarnsToo() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_PERSISTENCE_ONLY, 226);
        assertEquals(Severity.WARN, Pipeline.severity(run(), "diag"));
        fake.answers(null, DcgmTestData.DIAG_TEXT_PERSISTENCE_ONLY, 226);
        Verdict text = run();
        assertEquals(Severity.WARN, Pipeline.about(text, "diag", "GPU 0").severity(), Pipeline.findings(text, "diag").toString());
    }

    /** The same severity and category as persistence mode, but a test aborted early verified nothing: no excuse. */
    @Test
    void anAbortedTestIsNotExcusedAsConfiguration() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PERSISTENCE_AND_ABORTED, 226);
        Verdict v = run();
        assertEquals(Severity.WARN, Pipeline.about(v, "diag", "GPU 0").severity());
        Finding aborted = Pipeline.about(v, "diag", "GPU 1");
        assertEquals(Severity.FAIL, aborted.severity());
        assertEquals("DCGM diag level 2: test 'software' failed on GPU 1: Test was aborted early due to user signal (DCGM_FR_ABORTED, error 47)",
                aborted.message());
    }

    /** Issue 12 item 7: a diag whose plugins were all skipped verified nothing: undecided, never pass, never a hardware fail. */
    @Test
    void aDiagThatSkippedEveryTestIsUnknownWithTheReason() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_ALL_SKIPPED, 0);
        Verdict v = run();
        assertEquals(Severity.UNKNOWN, Pipeline.severity(v, "diag"), Pipeline.findings(v, "diag").toString());
        assertEquals("DCGM diag level 2 verified nothing: every test was skipped (Skipping test because GPU 0 is not supported by this plugin)",
                node(v).message());
        assertTrue(Pipeline.findings(v, "diag").stream().noneMatch(f -> f.severity() == Severity.FAIL || f.severity() == Severity.WARN));
    }

    @Test
    void runtimeErrorIsUnknown() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_RUNTIME_ERROR, 1);
        Finding f = node(run());
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("dcgmi diag could not run its tests: Couldn't find the NVVS binary", f.message());
    }

    @Test
    void aTopKeyOfTheWrongShapeIsUnreadableNotPassed() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_WRONG_SHAPE, 226);
        Finding f = node(run());
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("cannot parse dcgmi diag -r 2 -j output (exit code 226) at line 2: \"DCGM GPU Diagnostic\" holds a list "
                + "where dcgmi writes an object with \"test_categories\"", f.message());
        assertTrue(!stateText().contains(LastDiag.LAST_RUN), "an unreadable diag must not count as a diag that ran");
    }

    @Test
    void textTableIsReadWhenDcgmiPrintsNoJson() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_TEXT_FAIL, 226);
        Verdict v = run();
        assertEquals(List.of("GPU 1", "GPU 6"), problems(v).stream().map(f -> f.entity().label()).toList());
        assertEquals("DCGM diag level 2: test 'pcie' failed on GPU 1: GPU 1 bandwidth too low; the link training reported x4.",
                Pipeline.about(v, "diag", "GPU 1").message());
    }

    @Test
    void whileBusyAfterAPassingDiagItIsSkippedAndSaysSo() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        StateSection state = StateSection.detached("diag");
        Instant t0 = Instant.parse("2026-11-22T00:00:00Z");
        probe.probe(ctx(state).clock(Clock.fixed(t0, ZoneOffset.UTC)));
        Files.createDirectories(root.resolve("sys/fs/cgroup/system.slice/slurmstepd.scope/job_5"));
        ProbeResult r = probe.probe(ctx(state).clock(Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC)));
        assertEquals("dcgm diag not run now: Slurm job 5 holds the node (/sys/fs/cgroup/system.slice/slurmstepd.scope) "
                + "(diag disturbs GPU work); the last diag (2026-11-22T00:00:00Z) passed", r.skipped());
        assertEquals(1, fake.calls().size());
    }

    @Test
    void skippedNotFailedWhileAProcessHasAGpuOpen() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        Verdict v = run();
        assertEquals(CheckStatus.SKIPPED, Pipeline.result(v, "diag").status());
        assertEquals("dcgm diag not run now: pid 4242 (python3) has /dev/nvidia0 open (diag disturbs GPU work)", Pipeline.result(v, "diag").note());
        assertEquals(List.of(), fake.calls());
    }

    @Test
    void gpuDaemonsDoNotCountAsWork() throws Exception {
        gpuProcess(100, "nv-hostengine", "/dev/nvidia3");
        gpuProcess(101, "bash", "/dev/null");
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        assertEquals(CheckStatus.COMPLETED, Pipeline.result(run(), "diag").status());
        assertEquals(List.of("diag -r 2 -j"), fake.calls());
    }

    @Test
    void skippedWhileASlurmJobHoldsTheNode() throws Exception {
        Files.createDirectories(root.resolve("sys/fs/cgroup/system.slice/slurmstepd.scope/job_8812/step_0"));
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        Verdict v = run();
        assertTrue(Pipeline.result(v, "diag").note().startsWith("dcgm diag not run now: Slurm job 8812 holds the node"),
                Pipeline.result(v, "diag").note());
        assertEquals(List.of(), fake.calls());
    }

    @Test
    void slurmCgroupV1JobIsFoundUnderItsUid() throws Exception {
        Files.createDirectories(root.resolve("sys/fs/cgroup/memory/slurm/uid_1000/job_77"));
        assertEquals("Slurm job 77 holds the node (/sys/fs/cgroup/memory/slurm)", GpuActivity.slurmJob(new TestProbeContext(root)));
    }

    @Test
    void whileBusyTheLastFailingDiagIsStillReportedWithItsTime() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "diag"));
        gpuProcess(4242, "python3", "/dev/nvidia-uvm");
        Verdict v = run();
        assertEquals(1, fake.calls().size());
        Finding mem = Pipeline.about(v, "diag", "GPU 1");
        assertEquals(Severity.FAIL, mem.severity());
        assertTrue(mem.message().matches("DCGM diag level 2: test 'GPU Memory' failed on GPU 1: GPU 1 DBE detected during memory test "
                + "\\(diag of \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\\)"), mem.message());
        assertEquals(Severity.FAIL, node(v).severity());
    }

    @Test
    void aCarriedOverDiagSaysHowOldItIs() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        StateSection state = StateSection.detached("diag");
        Instant t0 = Instant.parse("2026-11-22T00:00:00Z");
        probe.probe(ctx(state).clock(Clock.fixed(t0, ZoneOffset.UTC)));
        gpuProcess(4242, "python3", "/dev/nvidia-uvm");
        ProbeResult r = probe.probe(ctx(state).clock(Clock.fixed(t0.plusSeconds(3600), ZoneOffset.UTC)));
        assertTrue(r.carriedOver());
        Observation gpu1 = r.observations().stream().filter(o -> o.entity().label().equals("GPU 1")).findFirst().orElseThrow();
        assertEquals(3600L, gpu1.get("age"));
        assertEquals(1L, gpu1.get("failed"));
        assertEquals("test 'GPU Memory' failed on GPU 1: GPU 1 DBE detected during memory test (diag of 2026-11-22T00:00:00Z)",
                gpu1.get("results"));
    }

    @Test
    void aDamagedKeptResultIsUnknownWhileBusyNotPassed() throws Exception {
        StateSection state = StateSection.detached("diag");
        state.put(LastDiag.LAST_RUN, Instant.parse("2026-11-22T00:00:00Z").toEpochMilli());
        state.put(LastDiag.LAST_RESULTS, List.of(Map.of("entity_kind", "gpu", "entity_id", "1", "entity", "GPU 1", "failed", "many")));
        gpuProcess(4242, "python3", "/dev/nvidia0");
        ProbeResult r = probe.probe(ctx(state));
        assertTrue(r.carriedOver(), "not a run: an every: diag must not wait its whole period to try again");
        assertEquals(1, r.observations().size());
        assertTrue(r.observations().get(0).problem().endsWith("the last diag's result (of 2026-11-22T00:00:00Z) could not be read back from "
                + "the check's state (a saved entry of last_results is damaged); diag runs again when the GPUs are idle"),
                r.observations().get(0).problem());
    }

    @Test
    void findingsKeptByNhc01AreCarriedOver() throws Exception {
        StateSection state = StateSection.detached("diag");
        state.put(LastDiag.LAST_RUN, Instant.parse("2026-11-22T00:00:00Z").toEpochMilli());
        state.put(LastDiag.LAST_LEVEL, 2L);
        state.put(LastDiag.LEGACY_FINDINGS, List.of(Map.of("entity", "gpu1", "severity", "fail",
                "message", "DCGM diag level 2: test 'GPU Memory' failed on GPU 1: GPU 1 DBE", "remedy", "none", "test", "GPU Memory")));
        gpuProcess(4242, "python3", "/dev/nvidia0");
        ProbeResult r = probe.probe(ctx(state));
        Observation gpu1 = r.observations().get(0);
        assertEquals(Entity.gpu(1, null), gpu1.entity());
        assertEquals(1L, gpu1.get("failed"));
        assertEquals("test 'GPU Memory' failed on GPU 1: GPU 1 DBE (diag of 2026-11-22T00:00:00Z)", gpu1.get("results"));
    }

    @Test
    void busyCheckCanBeTurnedOff() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        assertEquals(CheckStatus.COMPLETED, Pipeline.result(run(", skip_when_busy: false"), "diag").status());
        assertEquals(1, fake.calls().size());
    }

    @Test
    void hangingDiagIsKilledWithItsProcessTree() throws Exception {
        Path pidFile = tmp.resolve("nvvs.pid");
        fake.script("sh -c 'sleep 600 & echo $! > " + pidFile + "; wait' & wait");
        long t0 = System.nanoTime();
        ProbeResult r = probe.probe(ctx(StateSection.detached("d")).budget(Duration.ofSeconds(2)));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
        assertTrue(r.observations().get(0).problem().startsWith("dcgmi diag -r 2 -j did not finish within"), r.observations().get(0).problem());
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void emptyOutputAndEngineDownAreUnknown() throws Exception {
        fake.script("exit 3");
        Finding empty = node(run());
        assertEquals(Severity.UNKNOWN, empty.severity());
        assertEquals("dcgmi diag -r 2 -j printed nothing (exit code 3)", empty.message());
        fake.script("printf '" + DcgmTestData.ENGINE_DOWN.replace("\n", "\\n") + "'; exit 255");
        assertTrue(node(run()).message().startsWith("DCGM host engine is not reachable"));
    }

    @Test
    void replayJudgesTheDiagCaptureWithoutBusyChecksOrState() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        Verdict v = new Pipeline(root, probe).service(DcgmiOutputs.class, new DcgmiOutputs(null, DcgmTestData.DIAG_TEXT_FAIL, null, "diag.txt"))
                .run("- { name: diag, use: dcgm.diag, with: { dcgmi: /nonexistent, level: 2 } }");
        assertEquals(2, problems(v).size());
        assertTrue(!stateText().contains(LastDiag.LAST_RUN), "a replay keeps no result");
    }

    @Test
    void aLevelOutsideOneToFourIsAConfigErrorWithItsPlace() {
        ConfigException e = assertThrows(ConfigException.class, () -> new Pipeline(root, probe)
                .plan("- { name: diag, use: dcgm.diag, with: { level: 7 } }"));
        assertTrue(e.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'level' in .*must be 1, 2, 3 or 4, not 7"),
                e.problems().toString());
    }

    /** The check's state file as text, empty when the check kept nothing. */
    private String stateText() throws java.io.IOException {
        Path f = root.resolve("var/lib/nhc/check.diag.json");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    private TestProbeContext ctx(StateSection state) {
        return new TestProbeContext(root).with(probe.spec(), "{ dcgmi: " + fake.exe + ", level: 2 }").state(state);
    }

    private void gpuProcess(int pid, String comm, String device) throws Exception {
        Path dir = Files.createDirectories(root.resolve("proc/" + pid + "/fd"));
        Files.writeString(root.resolve("proc/" + pid + "/comm"), comm + "\n");
        Files.createSymbolicLink(dir.resolve("3"), Path.of(device));
    }

    @Test
    void itObservesCountsPerEntity() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_FAIL, 226);
        ProbeResult r = probe.probe(ctx(StateSection.detached("d")));
        Observation gpu2 = r.observations().stream().filter(o -> o.entity().label().equals("GPU 2")).findFirst().orElseThrow();
        assertEquals(1L, gpu2.get("failed"));
        assertEquals(1L, gpu2.get("warned"));
        assertEquals(0L, gpu2.get("config_failed"));
        assertEquals(2L, gpu2.get("level"));
        assertNull(r.skipped());
    }
}
