package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static dev.nhc.rules.testing.Pipeline.about;
import static dev.nhc.rules.testing.Pipeline.findings;
import static dev.nhc.rules.testing.Pipeline.only;
import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Every GPU probe through the real JNA binding against the project's fake libnvidia-ml.so.1, with
 * faults injected by scenario: verdicts as {@code nhc run} reaches them ({@link Pipeline}: config
 * loader, default rules, executor, severity policy), observations straight from the probe.
 */
class GpuProbesThroughFakeNvmlTest {

    @TempDir
    Path root;

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    private Verdict run(String checks) throws Exception {
        return GpuChecks.onFakeNvml(root).run(checks);
    }

    private Verdict run(String probe, String with) throws Exception {
        return run(GpuChecks.check(probe, with));
    }

    /** The probe's own observations, with a fixed clock where rates matter. */
    private ProbeResult observe(Probe probe, Clock clock, TestProbeContext ctx) throws Exception {
        return probe.probe(ctx.clock(clock));
    }

    private TestProbeContext context() {
        return FakeGpus.context(root);
    }

    private static Observation gpu(List<Observation> observations, int index) {
        return observations.stream().filter(o -> o.entity().gpuIndex().orElse(-1) == index).findFirst().orElseThrow();
    }

    private static List<Finding> bad(Verdict v, String check) {
        return findings(v, check).stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    @Test
    void eightHealthyH100sPassEveryCheckAndReportTheirValues() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(8)));

        // The executor runs the seven checks in parallel: they share one NVML session.
        Verdict v = run(GpuChecks.everyCheck("{ count: 8, model: H100 }", "{ expected_links: 18 }"));

        assertThat(v.findings()).isEmpty();
        assertThat(v.severity()).isEqualTo(Severity.PASS);
        List<Observation> inventory = result(v, "gpu.inventory").observations();
        assertThat(inventory.get(0).entity()).isEqualTo(GpuScan.GPUS);
        assertThat(inventory.get(0).fields()).containsEntry("gpu_count", 8L).containsEntry("driver_version", "535.161.08");
        assertThat(gpu(inventory, 1).entity()).isEqualTo(Entity.gpu(1, "0000:29:00.0"));
        assertThat(gpu(inventory, 1).fields()).containsEntry("pci_bus_id", "0000:29:00.0").containsEntry("model_matches", true)
                .containsEntry("name", "NVIDIA H100 80GB HBM3").containsEntry("persistence_mode", true)
                .doesNotContainKeys("lost", "responding", "nvml_error", "unreadable_values");
        assertThat(gpu(result(v, "gpu.nvlink").observations(), 0).fields()).containsEntry("nvlink_links", 18L).containsEntry("nvlink_active", 18L);
        assertThat(gpu(result(v, "gpu.pcie").observations(), 0).fields()).containsEntry("pcie_gen", 5L).containsEntry("pcie_width", 16L)
                .containsEntry("pcie_replay_limit_per_min", 31L).containsEntry("performance_state", 0L).containsEntry("gpu_utilization", 0L);
        assertThat(gpu(result(v, "gpu.power").observations(), 0).fields()).containsEntry("power", 67.74).containsEntry("power_limit", 700.0);
        assertThat(gpu(result(v, "gpu.thermal").observations(), 0).fields()).containsEntry("temperature", 29L)
                .containsEntry("memory_temperature", 39L).containsEntry("slowdown_margin", 60L)
                .containsEntry("clocks_event_reason_names", "none").containsEntry("hw_slowdown_reasons", "none");
        assertThat(Pipeline.severity(v, "gpu.ecc")).isEqualTo(Severity.PASS);
    }

    @Test
    void aLostGpuFailsWithSlurmStateFailAndRemedyRebootWhileTheOthersAreStillJudged() throws Exception {
        var gpus = FakeNvml.healthyH100s(8);
        gpus.get(3).put("returns", Map.of("nvmlDeviceGetRemappedRows", 15));
        gpus.get(5).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 0, "pending", true, "failure", false));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run("gpu.memory-repair", "");

        assertThat(bad(v, "gpu.memory-repair")).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 3", "GPU 5");
        Finding lost = about(v, "gpu.memory-repair", "GPU 3");
        assertThat(lost.severity()).isEqualTo(Severity.FAIL);
        assertThat(lost.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(lost.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(lost.entity()).isEqualTo(Entity.gpu(3, "0000:49:00.0"));
        assertThat(lost.message()).isEqualTo("GPU 3 (0000:49:00.0) is lost: nvmlDeviceGetRemappedRows returned GPU_IS_LOST (GPU is lost)");
        assertThat(gpu(result(v, "gpu.memory-repair").observations(), 3).fields()).containsEntry("lost", true)
                .containsEntry("nvml_call", "nvmlDeviceGetRemappedRows");
        assertThat(about(v, "gpu.memory-repair", "GPU 5").remedy()).isEqualTo(Remedy.RESET_GPU);
    }

    @Test
    void aGpuThatCannotBeOpenedIsLostOrUnknownByWhatNvmlSaid() throws Exception {
        var gpus = FakeNvml.healthyH100s(3);
        gpus.get(1).put("returns", Map.of("nvmlDeviceGetHandleByIndex_v2", 16));
        gpus.get(2).put("returns", Map.of("nvmlDeviceGetHandleByIndex_v2", 4));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run("gpu.ecc", "");

        assertThat(about(v, "gpu.ecc", "GPU 0").severity()).isEqualTo(Severity.PASS);
        Finding reset = about(v, "gpu.ecc", "GPU 1");
        assertThat(reset.severity()).isEqualTo(Severity.FAIL);
        assertThat(reset.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(reset.message()).isEqualTo("GPU 1 is lost: nvmlDeviceGetHandleByIndex_v2 returned RESET_REQUIRED (GPU requires restart)");
        Finding refused = about(v, "gpu.ecc", "GPU 2");
        assertThat(refused.severity()).isEqualTo(Severity.UNKNOWN);
        assertThat(refused.message()).isEqualTo("GPU 2: nvmlDeviceGetHandleByIndex_v2 returned NO_PERMISSION (Insufficient Permissions)");
    }

    @Test
    void aHungCallFailsThatGpuByItsDeadlineNamesTheCallAndLaterCallsToItAreSkipped() throws Exception {
        var gpus = FakeNvml.healthyH100s(8);
        gpus.get(3).put("delays_ms", Map.of("nvmlDeviceGetRemappedRows", 60_000));
        FakeNvml.use(FakeNvml.scenario(gpus));

        // NVML's per-call limit (5 s) plus slack: the run must come back although the call never does
        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> run("gpu.memory-repair", ""));

        assertThat(bad(v, "gpu.memory-repair")).singleElement().satisfies(hung -> {
            assertThat(hung.entity().label()).isEqualTo("GPU 3");
            assertThat(hung.severity()).isEqualTo(Severity.FAIL);
            assertThat(hung.remedy()).isEqualTo(Remedy.REBOOT);
            assertThat(hung.slurmState()).isNull();
            assertThat(hung.message()).matches("GPU 3 \\(0000:49:00\\.0\\) not responding: nvmlDeviceGetRemappedRows blocked > [0-9.]+s");
        });
        assertThat(result(v, "gpu.memory-repair").observations()).hasSize(8);
        assertThat(gpu(result(v, "gpu.memory-repair").observations(), 3).fields()).containsEntry("responding", false);
        String message = about(v, "gpu.memory-repair", "GPU 3").message();

        // The GPU's thread is still blocked: the next check skips GPU 3 at once instead of queueing behind it.
        Verdict ecc = assertTimeoutPreemptively(Duration.ofSeconds(3), () -> run("gpu.ecc", ""));
        assertThat(bad(ecc, "gpu.ecc")).extracting(f -> f.entity().label(), Finding::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("GPU 3", message));
    }

    @Test
    void twoHungGpusCostOneCallLimitNotTwo() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(1).put("delays_ms", Map.of("nvmlDeviceGetTemperature", 60_000));
        gpus.get(2).put("delays_ms", Map.of("nvmlDeviceGetTemperature", 60_000));
        FakeNvml.use(FakeNvml.scenario(gpus));

        // one 5 s call limit and slack, less than the two limits one after the other would take
        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(9), () -> run("gpu.thermal", ""));

        assertThat(bad(v, "gpu.thermal")).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 1", "GPU 2");
        assertThat(bad(v, "gpu.thermal")).allSatisfy(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).contains("not responding: nvmlDeviceGetTemperature blocked >");
        });
    }

    @Test
    void withoutNvmlTheGpusFailWhereTheConfigExpectsGpusAndAreUnknownElsewhere() throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(8));
        scenario.put("returns", Map.of("nvmlInit_v2", 9));
        FakeNvml.use(scenario);

        Verdict v = run(GpuChecks.check("gpu.inventory", "{ count: 8 }") + "- { name: any-count, use: gpu.inventory }\n"
                + GpuChecks.check("gpu.ecc", ""));

        Finding expected = only(v, "gpu.inventory");
        assertThat(expected.entity()).isEqualTo(GpuScan.GPUS);
        assertThat(expected.severity()).isEqualTo(Severity.FAIL);
        assertThat(expected.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(expected.message()).startsWith("the NVIDIA driver is not loaded (nvmlInit_v2 returned DRIVER_NOT_LOADED (Driver Not Loaded))");
        assertThat(only(v, "any-count").severity()).isEqualTo(Severity.UNKNOWN);
        assertThat(only(v, "any-count").message()).isEqualTo(expected.message());
        assertThat(only(v, "gpu.ecc")).satisfies(f -> {
            assertThat(f.entity()).isEqualTo(GpuScan.GPUS);
            assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
        });

        scenario.put("returns", Map.of("nvmlInit_v2", 18));
        FakeNvml.use(scenario);
        assertThat(only(run("gpu.ecc", ""), "gpu.ecc").message()).contains("different versions").contains("LIB_RM_VERSION_MISMATCH");
    }

    @Test
    void aMissingLibraryIsAnAnswerNotACrash() throws Exception {
        NvmlSessions.closeAll();
        Path missing = root.resolve("no-such/libnvidia-ml.so.1");

        Verdict v = new Pipeline(root, GpuChecks.probes()).settings("nvml_library: " + missing).run(GpuChecks.check("gpu.inventory", "{ count: 8 }"));

        assertThat(only(v, "gpu.inventory")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("cannot load NVML from " + missing + " (settings.nvml_library)");
        });
    }

    @Test
    void asRootALibraryAnotherUserCouldChangeIsNeverLoaded() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(),
                "the root-only rule is about files other users own: only root can make them (CI runs as root)");
        NvmlSessions.closeAll();
        Path userDir = java.nio.file.Files.createDirectories(root.toRealPath().resolve("home-user"));
        java.nio.file.Files.setPosixFilePermissions(root.toRealPath(), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path copy = java.nio.file.Files.copy(Path.of(FakeNvml.library()), userDir.resolve("libnvidia-ml.so.1"));
        java.nio.file.Files.setAttribute(userDir, "unix:uid", 65534);

        Verdict v = new Pipeline(root, GpuChecks.probes()).settings("nvml_library: " + copy).run(GpuChecks.check("gpu.inventory", "{ count: 8 }"));

        assertThat(only(v, "gpu.inventory").message()).isEqualTo("refusing to load NVML from " + copy + " (settings.nvml_library) as root: "
                + "directory " + userDir + " is owned by uid 65534, not root; running as root, nhc loads only libraries that only root can change");
        assertThat(java.nio.file.Files.readString(Path.of("/proc/self/maps"))).doesNotContain(copy.toString());
    }

    @Test
    void aHungInitEndsByTheCallLimit() throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(2));
        scenario.put("delays_ms", Map.of("nvmlInit_v2", 30_000));
        FakeNvml.use(scenario);

        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(9), () -> run("gpu.inventory", "{ count: 2 }"));

        assertThat(only(v, "gpu.inventory")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).contains("not responding: nvmlInit_v2 blocked >");
        });
    }

    /** Issue 13 item 14: init returned, then the count or the driver version hung; the message named nvmlInit_v2. */
    @ParameterizedTest
    @ValueSource(strings = {"nvmlDeviceGetCount_v2", "nvmlSystemGetDriverVersion"})
    void aHangAfterInitNamesTheCallThatBlocked(String call) throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(2));
        scenario.put("delays_ms", Map.of(call, 30_000));
        FakeNvml.use(scenario);

        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(9), () -> run("gpu.inventory", "{ count: 2 }"));

        assertThat(only(v, "gpu.inventory")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).contains("not responding: " + call + " blocked >").doesNotContain("nvmlInit_v2");
        });
    }

    /**
     * Issue 13's fault suite: a hang while opening NVML left every probe but a GPU count "unknown" (exit 0), as if
     * NVML were merely absent. A hung NVML call means a sick GPU; here, the GPUs' driver is hung.
     */
    @ParameterizedTest
    @ValueSource(strings = {"nvmlInit_v2", "nvmlDeviceGetCount_v2"})
    void aHangWhileOpeningFailsEveryGpuProbeNotOnlyTheCount(String call) throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(2));
        scenario.put("delays_ms", Map.of(call, 30_000));
        FakeNvml.use(scenario);

        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(9), () -> run("gpu.thermal", ""));

        assertThat(only(v, "gpu.thermal")).satisfies(f -> {
            assertThat(f.entity()).isEqualTo(GpuScan.GPUS);
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.REBOOT);
            assertThat(f.message()).contains("is not responding: " + call + " blocked >").contains("the driver or a GPU is hung");
        });
        assertThat(result(v, "gpu.thermal").observations()).singleElement().satisfies(o -> assertThat(o.fields())
                .containsEntry("responding", false).containsEntry("nvml_call", call).containsEntry("nvml_available", false));
    }

    @Test
    void aMalformedScenarioMakesInitFailWithTheFakesReasonOnStderr() throws Exception {
        FakeNvml.useRaw("{\"gpus\": [ {\"name\": \"x\",, } ]}");

        assertThat(only(run("gpu.power", ""), "gpu.power")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(f.message()).isEqualTo("NVML failed to initialise (nvmlInit_v2 returned UNKNOWN (Unknown Error))");
        });
    }

    @Test
    void oneGpuMissingFailsTheCountAndOneTooManyWarns() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(7)));

        Verdict v = run("gpu.inventory", "{ count: 8, model: H100 }");

        assertThat(bad(v, "gpu.inventory")).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo(GpuScan.GPUS);
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.REBOOT);
            assertThat(f.message()).isEqualTo("only 7 of the 8 GPUs found (a GPU fell off the bus or was not enumerated; see dmesg for Xid 79)");
        });
        assertThat(bad(run("gpu.inventory", "{ count: 6 }"), "gpu.inventory")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("7 GPUs found, more than the 6 expected (is the check's count right for this host?)");
        });
    }

    @Test
    void aGpuOfTheWrongModelFailsForHardware() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(1).put("name", "NVIDIA A100-SXM4-80GB");
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run("gpu.inventory", "{ count: 2, model: h100 }");

        assertThat(bad(v, "gpu.inventory")).singleElement().satisfies(f -> {
            assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0) is a NVIDIA A100-SXM4-80GB, expected h100");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.HARDWARE);
        });
        assertThat(gpu(result(v, "gpu.inventory").observations(), 1).fields()).containsEntry("model_matches", false);
        // without a model nothing is compared
        assertThat(gpu(result(run("gpu.inventory", ""), "gpu.inventory").observations(), 1).fields()).doesNotContainKey("model_matches");
    }

    @Test
    void aLinkDownFailsAndFewerLinksThanExpectedFail() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        @SuppressWarnings("unchecked")
        var links = (List<Map<String, Object>>) gpus.get(2).get("nvlinks");
        links.get(5).put("active", false);
        links.get(11).put("active", false);
        @SuppressWarnings("unchecked")
        var fewer = (List<Map<String, Object>>) gpus.get(1).get("nvlinks");
        fewer.subList(16, 18).clear();
        gpus.get(3).remove("nvlinks");
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run("gpu.nvlink", "{ expected_links: 18 }");

        assertThat(about(v, "gpu.nvlink", "GPU 2")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
            assertThat(f.message()).isEqualTo("GPU 2 (0000:39:00.0): NVLink 5, 11 down (DCGM: NVLINK_DOWN)");
        });
        assertThat(about(v, "gpu.nvlink", "GPU 1").message())
                .isEqualTo("GPU 1 (0000:29:00.0): 16 of the expected 18 NVLinks are up (16 reported by the GPU)");
        assertThat(about(v, "gpu.nvlink", "GPU 3").message())
                .isEqualTo("GPU 3 (0000:49:00.0): 0 of the expected 18 NVLinks are up (0 reported by the GPU)");
        assertThat(about(v, "gpu.nvlink", "GPU 0").severity()).isEqualTo(Severity.PASS);

        // without expected_links, a GPU without NVLink (a PCIe card) passes
        Verdict unexpected = run("gpu.nvlink", "");
        assertThat(about(unexpected, "gpu.nvlink", "GPU 3").severity()).isEqualTo(Severity.PASS);
        assertThat(about(unexpected, "gpu.nvlink", "GPU 1").severity()).isEqualTo(Severity.PASS);
    }

    @Test
    void nvlinkErrorsGrowingBetweenRunsFail() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.use(FakeNvml.scenario(gpus));
        TestProbeContext ctx = context();
        observe(new GpuNvlinkProbe(), Clock.fixed(t0, ZoneOffset.UTC), ctx);
        assertThat(run("gpu.nvlink", "").findings()).isEmpty();

        @SuppressWarnings("unchecked")
        var links = (List<Map<String, Object>>) gpus.get(1).get("nvlinks");
        links.get(3).put("replay", 4);
        links.get(3).put("crc_flit", 120);
        FakeNvml.use(FakeNvml.scenario(gpus));

        ProbeResult second = observe(new GpuNvlinkProbe(), Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC), ctx);
        assertThat(gpu(second.observations(), 1).fields()).containsEntry("nvlink_replay_increase", 4L).containsEntry("nvlink_crc_per_sec", 2.0);
        Verdict v = run("gpu.nvlink", "");
        assertThat(bad(v, "gpu.nvlink")).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 1");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0): 4 new NVLink replay errors (DCGM: NVLINK_ERROR_CRITICAL)");
        });
    }

    @Test
    void eccCorrectedErrorsRisingBetweenTwoRunsWarnOnTheRate() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.section(gpus.get(0), "ecc").put("volatile_corrected", 10);
        FakeNvml.use(FakeNvml.scenario(gpus));
        TestProbeContext ctx = context();
        ProbeResult first = observe(new GpuEccProbe(), Clock.fixed(t0, ZoneOffset.UTC), ctx);
        assertThat(gpu(first.observations(), 0).fields()).containsEntry("volatile_corrected", 10L).doesNotContainKey("corrected_per_hour");
        assertThat(run("gpu.ecc", "").findings()).isEmpty();

        FakeNvml.section(gpus.get(0), "ecc").put("volatile_corrected", 1010);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ProbeResult second = observe(new GpuEccProbe(), Clock.fixed(t0.plusSeconds(600), ZoneOffset.UTC), ctx);
        assertThat(gpu(second.observations(), 0).fields()).containsEntry("corrected_per_hour", 6000.0);

        Verdict v = run("gpu.ecc", "");
        assertThat(v.findings()).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 0");
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).startsWith("GPU 0 (0000:19:00.0): corrected ECC errors rising at ");
        });
    }

    @Test
    void aVolatileUncorrectableEccErrorFailsWithResetGpu() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.section(gpus.get(1), "ecc").put("volatile_uncorrected", 2);
        FakeNvml.use(FakeNvml.scenario(gpus));

        assertThat(run("gpu.ecc", "").findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
            assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0): 2 uncorrectable ECC errors since the driver loaded (DCGM: VOLATILE_DBE_DETECTED)");
        });
    }

    @Test
    void aGpuAboveItsSlowdownTemperatureWarns() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(1).put("temperature", 90);
        FakeNvml.use(FakeNvml.scenario(gpus));

        assertThat(run("gpu.thermal", "").findings()).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 1");
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0): at 90C, at or above its slowdown temperature 89C");
        });
    }

    @Test
    void aPendingRowRemapFailsWithResetGpuAndARemapFailureAsksForHardware() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(1).put("remapped_rows", Map.of("correctable", 1, "uncorrectable", 0, "pending", true, "failure", false));
        gpus.get(2).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 512, "pending", false, "failure", true));
        gpus.get(3).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 600, "pending", false, "failure", false));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run("gpu.memory-repair", "");

        Finding pending = about(v, "gpu.memory-repair", "GPU 1");
        assertThat(pending.severity()).isEqualTo(Severity.FAIL);
        assertThat(pending.remedy()).isEqualTo(Remedy.RESET_GPU);
        Finding failed = about(v, "gpu.memory-repair", "GPU 2");
        assertThat(failed.severity()).isEqualTo(Severity.FAIL);
        assertThat(failed.remedy()).isEqualTo(Remedy.HARDWARE);
        assertThat(failed.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(about(v, "gpu.memory-repair", "GPU 3").severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void notSupportedLeavesTheFieldOutAndUnreadablePowerWarns() throws Exception {
        var gpus = FakeNvml.healthyH100s(1);
        gpus.get(0).remove("power_usage_mw");
        gpus.get(0).remove("nvlinks");
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run(GpuChecks.everyCheck("", ""));

        assertThat(gpu(result(v, "gpu.power").observations(), 0).fields()).containsEntry("power_readable", false).doesNotContainKey("power");
        assertThat(only(v, "gpu.power")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 0 (0000:19:00.0): power draw cannot be read (DCGM: power unreadable)");
        });
        assertThat(gpu(result(v, "gpu.memory-repair").observations(), 0).fields()).doesNotContainKeys("retired_pages", "retired_pages_pending");
        assertThat(only(v, "gpu.memory-repair").severity()).isEqualTo(Severity.PASS);
        assertThat(gpu(result(v, "gpu.nvlink").observations(), 0).fields()).containsEntry("nvlink_links", 0L);
        assertThat(v.findings()).extracting(Finding::check).containsExactly("gpu.power");
    }

    @Test
    void valuesNvmlRefusesMakeThatGpuUnknownUnlessSomethingWorseIsFound() throws Exception {
        var gpus = FakeNvml.healthyH100s(3);
        gpus.get(0).put("returns", Map.of("nvmlDeviceGetTotalEccErrors", 4));
        gpus.get(1).put("returns", Map.of("nvmlDeviceGetMemoryErrorCounter", 4));
        FakeNvml.section(gpus.get(1), "ecc").put("volatile_uncorrected", 2);
        gpus.get(2).put("returns", Map.of("nvmlDeviceGetPowerUsage", 4));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = run(GpuChecks.check("gpu.ecc", "") + GpuChecks.check("gpu.power", ""));

        // the four totals refused alike are said once
        assertThat(about(v, "gpu.ecc", "GPU 0")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(f.message()).isEqualTo("GPU 0 (0000:19:00.0): nvmlDeviceGetTotalEccErrors returned NO_PERMISSION (Insufficient Permissions)");
        });
        assertThat(gpu(result(v, "gpu.ecc").observations(), 0).fields()).containsEntry("unreadable_values", 1L)
                .containsEntry("volatile_dram_corrected", 0L);
        assertThat(about(v, "gpu.ecc", "GPU 1")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("GPU 1 (0000:29:00.0): 2 uncorrectable ECC errors");
        });
        assertThat(about(v, "gpu.ecc", "GPU 2").severity()).isEqualTo(Severity.PASS);
        // DCGM's power watch: power that cannot be read warns, whatever the reason
        assertThat(about(v, "gpu.power", "GPU 2")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 2 (0000:39:00.0): power draw cannot be read (DCGM: power unreadable)");
        });
    }

    @Test
    void pcieReplaysAboveDcgmsPerLaneLimitAndLostLanesWarn() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.use(FakeNvml.scenario(gpus));
        TestProbeContext ctx = context();
        observe(new GpuPcieProbe(), Clock.fixed(t0, ZoneOffset.UTC), ctx);
        assertThat(run("gpu.pcie", "").findings()).isEmpty();

        FakeNvml.section(gpus.get(1), "pcie").put("replay_counter", 67 + 100);
        FakeNvml.section(gpus.get(0), "pcie").put("width", 8);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ProbeResult second = observe(new GpuPcieProbe(), Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC), ctx);
        assertThat(gpu(second.observations(), 1).fields()).containsEntry("pcie_replays_per_min", 100.0).containsEntry("pcie_replay_rate_exceeded", true);

        Verdict v = run("gpu.pcie", "");
        assertThat(v.findings()).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 0", "GPU 1");
        assertThat(about(v, "gpu.pcie", "GPU 0").message()).isEqualTo("GPU 0 (0000:19:00.0): PCIe link runs at x8 of x16");
        assertThat(about(v, "gpu.pcie", "GPU 1").message()).startsWith("GPU 1 (0000:29:00.0): PCIe replays at ")
                .endsWith(", above DCGM's limit of 31/min (PCI_REPLAY_RATE)");
    }
}
