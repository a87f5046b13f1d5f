package dev.nhc.checks.dcgm;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DcgmDiagProbeTest {
    @TempDir
    Path tmp;
    Path root;
    FakeDcgmi fake;
    private final DcgmDiagProbe probe = new DcgmDiagProbe();
    private final StateSection state = StateSection.detached("dcgm-diag");

    @BeforeEach
    void setUp() throws Exception {
        root = tmp.resolve("root");
        Files.createDirectories(root.resolve("proc"));
        fake = new FakeDcgmi(tmp.resolve("bin"));
    }

    private TestProbeContext ctx(Map<String, Object> extra) {
        Map<String, Object> p = new HashMap<>(Map.of("dcgmi", fake.exe.toString(), "level", 2L, "skip_when_busy", true,
                "ignore_processes", List.copyOf(GpuActivity.DAEMONS)));
        p.putAll(extra);
        return new TestProbeContext(root).params(p).state(state);
    }

    private TestProbeContext ctx() {
        return ctx(Map.of());
    }

    @Test
    void dcgm3FailuresBecomeOneFindingPerTestAndGpu() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        ProbeResult r = probe.probe(ctx());
        assertEquals(List.of("diag -r 2 -j"), fake.calls());
        assertEquals(2, r.findings().size(), r.findings().toString());
        Finding cuda = r.findings().get(0);
        assertEquals("node", cuda.entity());
        assertEquals(Severity.FAIL, cuda.severity());
        assertEquals("DCGM diag level 2: test 'CUDA Main Library' failed: Cannot open library libcuda.so.1: no such file", cuda.message());
        Finding mem = r.findings().get(1);
        assertEquals("gpu1", mem.entity());
        assertEquals("DCGM diag level 2: test 'GPU Memory' failed on GPU 1: GPU 1 DBE detected during memory test", mem.message());
    }

    @Test
    void dcgm4EntityResultsWithWarningListsAndErrorIds() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_FAIL, 226);
        ProbeResult r = probe.probe(ctx());
        assertEquals(3, r.findings().size(), r.findings().toString());
        assertEquals(List.of("gpu2", "gpu5", "gpu2"), r.findings().stream().map(Finding::entity).toList());
        assertEquals(List.of(Severity.FAIL, Severity.FAIL, Severity.WARN), r.findings().stream().map(Finding::severity).toList());
        assertEquals("DCGM diag level 2: test 'pcie' failed on GPU 2: GPU 2 PCIe link width x8 is below the expected x16 (DCGM error 83)",
                r.findings().get(0).message());
        assertEquals(5L, r.observations().get(0).get("tests")); // pcie 3, memory 1, eud summary 1
    }

    @Test
    void aStatusLineBeforeTheJsonIsIgnored() throws Exception {
        fake.answers(null, "Successfully ran diagnostic for group.\n" + DcgmTestData.DIAG_V3_FAIL, 226);
        assertEquals(2, probe.probe(ctx()).findings().size());
    }

    @Test
    void dcgm4PassingDiagGivesNoFindings() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        ProbeResult r = probe.probe(ctx());
        assertEquals(List.of(), r.findings());
        assertNull(r.skipped());
    }

    @Test
    void runtimeErrorIsUnknown() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_RUNTIME_ERROR, 1);
        Finding f = probe.probe(ctx()).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("dcgmi diag could not run its tests: Couldn't find the NVVS binary", f.message());
    }

    @Test
    void aTopKeyOfTheWrongShapeIsUnreadableNotPassed() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_WRONG_SHAPE, 226);
        ProbeResult r = probe.probe(ctx());
        assertEquals(1, r.findings().size());
        Finding f = r.findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("cannot parse dcgmi diag -r 2 -j output (exit code 226) at line 2: \"DCGM GPU Diagnostic\" holds a list "
                + "where dcgmi writes an object with \"test_categories\"", f.message());
        assertNull(state.get(DcgmDiagProbe.LAST_RUN), "an unreadable diag must not count as a diag that ran");
    }

    @Test
    void textTableIsReadWhenDcgmiPrintsNoJson() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_TEXT_FAIL, 226);
        ProbeResult r = probe.probe(ctx());
        assertEquals(List.of("gpu1", "gpu6"), r.findings().stream().map(Finding::entity).toList());
        assertEquals("DCGM diag level 2: test 'pcie' failed on GPU 1: GPU 1 bandwidth too low; the link training reported x4.",
                r.findings().get(0).message());
    }

    @Test
    void whileBusyAfterAPassingDiagItIsSkippedAndSaysSo() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        Instant t0 = Instant.parse("2026-11-22T00:00:00Z");
        assertEquals(List.of(), probe.probe(ctx().clock(Clock.fixed(t0, ZoneOffset.UTC))).findings());
        Files.createDirectories(root.resolve("sys/fs/cgroup/system.slice/slurmstepd.scope/job_5"));
        ProbeResult r = probe.probe(ctx().clock(Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC)));
        assertEquals("dcgm diag not run now: Slurm job 5 holds the node (/sys/fs/cgroup/system.slice/slurmstepd.scope) "
                + "(diag disturbs GPU work); the last diag (2026-11-22T00:00:00Z) passed", r.skipped());
        assertEquals(1, fake.calls().size());
    }

    @Test
    void skippedNotFailedWhileAProcessHasAGpuOpen() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        ProbeResult r = probe.probe(ctx());
        assertEquals("dcgm diag not run now: pid 4242 (python3) has /dev/nvidia0 open (diag disturbs GPU work)", r.skipped());
        assertEquals(List.of(), r.findings());
        assertEquals(List.of(), fake.calls());
    }

    @Test
    void gpuDaemonsDoNotCountAsWork() throws Exception {
        gpuProcess(100, "nv-hostengine", "/dev/nvidia3");
        gpuProcess(101, "bash", "/dev/null");
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        ProbeResult r = probe.probe(ctx());
        assertNull(r.skipped());
        assertEquals(List.of("diag -r 2 -j"), fake.calls());
    }

    @Test
    void skippedWhileASlurmJobHoldsTheNode() throws Exception {
        Files.createDirectories(root.resolve("sys/fs/cgroup/system.slice/slurmstepd.scope/job_8812/step_0"));
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        ProbeResult r = probe.probe(ctx());
        assertTrue(r.skipped().startsWith("dcgm diag not run now: Slurm job 8812 holds the node"), r.skipped());
        assertEquals(List.of(), fake.calls());
    }

    @Test
    void slurmCgroupV1JobIsFoundUnderItsUid() throws Exception {
        Files.createDirectories(root.resolve("sys/fs/cgroup/memory/slurm/uid_1000/job_77"));
        assertEquals("Slurm job 77 holds the node (/sys/fs/cgroup/memory/slurm)", GpuActivity.slurmJob(ctx()));
    }

    @Test
    void whileBusyTheLastFailingDiagIsStillReportedWithItsTime() throws Exception {
        fake.answers(null, DcgmTestData.DIAG_V3_FAIL, 226);
        Instant t0 = Instant.parse("2026-11-22T00:00:00Z");
        probe.probe(ctx().clock(Clock.fixed(t0, ZoneOffset.UTC)));
        gpuProcess(4242, "python3", "/dev/nvidia-uvm");
        ProbeResult r = probe.probe(ctx().clock(Clock.fixed(t0.plusSeconds(3600), ZoneOffset.UTC)));
        assertNull(r.skipped());
        assertEquals(2, r.findings().size());
        assertEquals(1, fake.calls().size());
        Finding mem = r.findings().get(1);
        assertEquals("gpu1", mem.entity());
        assertEquals(Severity.FAIL, mem.severity());
        assertEquals("DCGM diag level 2: test 'GPU Memory' failed on GPU 1: GPU 1 DBE detected during memory test "
                + "(diag of 2026-11-22T00:00:00Z)", mem.message());
        assertEquals(3600L, r.observations().get(0).get("age"));
    }

    @Test
    void busyCheckCanBeTurnedOff() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        fake.answers(null, DcgmTestData.DIAG_V4_PASS, 0);
        ProbeResult r = probe.probe(ctx(Map.of("skip_when_busy", false)));
        assertNull(r.skipped());
        assertEquals(1, fake.calls().size());
    }

    @Test
    void hangingDiagIsKilledWithItsProcessTree() throws Exception {
        Path pidFile = tmp.resolve("nvvs.pid");
        fake.script("sh -c 'sleep 600 & echo $! > " + pidFile + "; wait' & wait");
        long t0 = System.nanoTime();
        ProbeResult r = probe.probe(ctx().budget(Duration.ofSeconds(2)));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
        Finding f = r.findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("dcgmi diag -r 2 -j did not finish within"), f.message());
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void emptyOutputAndEngineDownAreUnknown() throws Exception {
        fake.script("exit 3");
        assertEquals("dcgmi diag -r 2 -j printed nothing (exit code 3)", probe.probe(ctx()).findings().get(0).message());
        fake.script("printf '" + DcgmTestData.ENGINE_DOWN.replace("\n", "\\n") + "'; exit 255");
        assertTrue(probe.probe(ctx()).findings().get(0).message().startsWith("DCGM host engine is not reachable"));
    }

    @Test
    void replayJudgesTheDiagCaptureWithoutBusyChecksOrState() throws Exception {
        gpuProcess(4242, "python3", "/dev/nvidia0");
        TestProbeContext c = ctx(Map.of("dcgmi", "/nonexistent")).service(DcgmiOutputs.class,
                new DcgmiOutputs(null, DcgmTestData.DIAG_TEXT_FAIL, null, "diag.txt"));
        ProbeResult r = probe.probe(c);
        assertEquals(2, r.findings().size());
        assertNull(state.get(DcgmDiagProbe.LAST_RUN));
    }

    private void gpuProcess(int pid, String comm, String device) throws Exception {
        Path dir = Files.createDirectories(root.resolve("proc/" + pid + "/fd"));
        Files.writeString(root.resolve("proc/" + pid + "/comm"), comm + "\n");
        Files.createSymbolicLink(dir.resolve("3"), Path.of(device));
    }
}
