package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Every GPU probe through the real JNA binding against the project's fake libnvidia-ml.so.1, with faults injected by scenario. */
class GpuProbesThroughFakeNvmlTest {

    @TempDir
    Path root;

    private TestProbeContext ctx;

    @BeforeEach
    void context() {
        ctx = new TestProbeContext(root).setting("nvml_library", FakeNvml.library()).budget(Duration.ofSeconds(10));
    }

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    private record Judged(ProbeResult result, List<Finding> findings) {
        Severity severity() {
            return DefaultRules.worst(findings);
        }

        List<Finding> bad() {
            return findings.stream().filter(f -> f.severity() != Severity.PASS).toList();
        }

        Observation gpu(int index) {
            return result.observations().stream().filter(o -> o.entity().equals("GPU " + index)).findFirst().orElseThrow();
        }
    }

    private Judged run(Probe probe) throws Exception {
        ProbeResult r = probe.probe(ctx);
        return new Judged(r, DefaultRules.judge(probe.spec(), r));
    }

    private static final List<Probe> ALL = List.of(new GpuInventoryProbe(), new GpuEccProbe(), new GpuMemoryRepairProbe(),
            new GpuPcieProbe(), new GpuNvlinkProbe(), new GpuThermalProbe(), new GpuPowerProbe());

    @Test
    void eightHealthyH100sPassEveryProbeAndReportTheirValues() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(8)));
        ctx.params(Map.of("count", 8L, "model", "H100"));
        for (Probe p : ALL) {
            Judged j = run(p);
            assertThat(j.bad()).as(p.spec().name()).isEmpty();
            assertThat(j.result().observations()).as(p.spec().name()).hasSizeGreaterThanOrEqualTo(8);
        }
        Judged inventory = run(new GpuInventoryProbe());
        assertThat(inventory.result().observations().get(0).fields())
                .containsEntry("gpu_count", 8L).containsEntry("driver_version", "535.161.08");
        assertThat(inventory.gpu(1).fields()).containsEntry("pci_bus_id", "0000:29:00.0")
                .containsEntry("name", "NVIDIA H100 80GB HBM3").containsEntry("persistence_mode", true);
        assertThat(run(new GpuNvlinkProbe()).gpu(0).fields()).containsEntry("nvlink_links", 18L).containsEntry("nvlink_active", 18L);
        assertThat(run(new GpuPcieProbe()).gpu(0).fields()).containsEntry("pcie_gen", 5L).containsEntry("pcie_width", 16L)
                .containsEntry("pcie_replay_limit_per_min", 31L);
        assertThat(run(new GpuPowerProbe()).gpu(0).fields()).containsEntry("power", 67.74).containsEntry("power_limit", 700.0);
        assertThat(run(new GpuThermalProbe()).gpu(0).fields()).containsEntry("temperature", 29L).containsEntry("memory_temperature", 39L)
                .containsEntry("slowdown_margin", 60L);
    }

    @Test
    void aLostGpuFailsWithSlurmStateFailAndRemedyRebootWhileTheOthersAreStillJudged() throws Exception {
        var gpus = FakeNvml.healthyH100s(8);
        gpus.get(3).put("returns", Map.of("nvmlDeviceGetRemappedRows", 15));
        gpus.get(5).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 0, "pending", true, "failure", false));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged j = run(new GpuMemoryRepairProbe());

        assertThat(j.bad()).extracting(Finding::entity).containsExactlyInAnyOrder("GPU 3", "GPU 5");
        Finding lost = j.bad().stream().filter(f -> f.entity().equals("GPU 3")).findFirst().orElseThrow();
        assertThat(lost.severity()).isEqualTo(Severity.FAIL);
        assertThat(lost.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(lost.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(lost.message()).isEqualTo("GPU 3 (0000:49:00.0) is lost: nvmlDeviceGetRemappedRows returned GPU_IS_LOST (GPU is lost)");
    }

    @Test
    void aHungCallFailsThatGpuByItsDeadlineNamesTheCallAndLaterCallsToItAreSkipped() throws Exception {
        var gpus = FakeNvml.healthyH100s(8);
        gpus.get(3).put("delays_ms", Map.of("nvmlDeviceGetRemappedRows", 60_000));
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.budget(Duration.ofSeconds(3));

        // the 3 s budget plus generous slack: the probe must come back although the call never does
        Judged j = assertTimeoutPreemptively(Duration.ofSeconds(8), () -> run(new GpuMemoryRepairProbe()));

        assertThat(j.bad()).hasSize(1);
        Finding hung = j.bad().get(0);
        assertThat(hung.entity()).isEqualTo("GPU 3");
        assertThat(hung.severity()).isEqualTo(Severity.FAIL);
        assertThat(hung.message()).matches("GPU 3 \\(0000:49:00\\.0\\) not responding: nvmlDeviceGetRemappedRows blocked > [0-9.]+s");
        assertThat(j.result().observations()).hasSize(8);

        // The GPU's thread is still blocked: the next probe skips GPU 3 at once instead of queueing behind it.
        Judged ecc = assertTimeoutPreemptively(Duration.ofSeconds(3), () -> run(new GpuEccProbe()));
        assertThat(ecc.bad()).extracting(Finding::entity, Finding::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("GPU 3", hung.message()));
    }

    @Test
    void twoHungGpusCostOneCallLimitNotTwo() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(1).put("delays_ms", Map.of("nvmlDeviceGetTemperature", 60_000));
        gpus.get(2).put("delays_ms", Map.of("nvmlDeviceGetTemperature", 60_000));
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.budget(Duration.ofSeconds(3));

        Judged j = assertTimeoutPreemptively(Duration.ofSeconds(6), () -> run(new GpuThermalProbe()));

        assertThat(j.bad()).extracting(Finding::entity).containsExactlyInAnyOrder("GPU 1", "GPU 2");
        assertThat(j.bad()).allSatisfy(f -> assertThat(f.message()).contains("not responding: nvmlDeviceGetTemperature blocked >"));
    }

    @Test
    void initFailuresAreClearAndFailOnlyWhereTheConfigExpectsGpus() throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(8));
        scenario.put("returns", Map.of("nvmlInit_v2", 9));
        FakeNvml.use(scenario);

        ctx.params(Map.of("count", 8L));
        Judged inventory = run(new GpuInventoryProbe());
        assertThat(inventory.bad()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPUs");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("the NVIDIA driver is not loaded (nvmlInit_v2 returned DRIVER_NOT_LOADED (Driver Not Loaded))");
        });
        ctx.params(Map.of());
        assertThat(run(new GpuEccProbe()).bad()).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.UNKNOWN));

        scenario.put("returns", Map.of("nvmlInit_v2", 18));
        FakeNvml.use(scenario);
        assertThat(run(new GpuEccProbe()).bad()).singleElement()
                .satisfies(f -> assertThat(f.message()).contains("different versions").contains("LIB_RM_VERSION_MISMATCH"));
    }

    @Test
    void aMissingLibraryIsAnAnswerNotACrash() throws Exception {
        NvmlSessions.closeAll();
        ctx.setting("nvml_library", root.resolve("no-such/libnvidia-ml.so.1").toString()).params(Map.of("count", 8L));

        Judged j = run(new GpuInventoryProbe());

        assertThat(j.bad()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("cannot load NVML from " + root.resolve("no-such/libnvidia-ml.so.1") + " (settings.nvml_library)");
        });
    }

    @Test
    void aHungInitEndsByTheDeadline() throws Exception {
        var scenario = FakeNvml.scenario(FakeNvml.healthyH100s(2));
        scenario.put("delays_ms", Map.of("nvmlInit_v2", 30_000));
        FakeNvml.use(scenario);
        ctx.budget(Duration.ofSeconds(2)).params(Map.of("count", 2L));

        Judged j = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> run(new GpuInventoryProbe()));

        assertThat(j.bad()).singleElement().satisfies(f -> {
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
        ctx.budget(Duration.ofSeconds(2)).params(Map.of("count", 2L));

        Judged j = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> run(new GpuInventoryProbe()));

        assertThat(j.bad()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).contains("not responding: " + call + " blocked >").doesNotContain("nvmlInit_v2");
        });
    }

    @Test
    void aMalformedScenarioMakesInitFailWithTheFakesReasonOnStderr() throws Exception {
        FakeNvml.useRaw("{\"gpus\": [ {\"name\": \"x\",, } ]}");

        Judged j = run(new GpuPowerProbe());

        assertThat(j.bad()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(f.message()).isEqualTo("NVML failed to initialise (nvmlInit_v2 returned UNKNOWN (Unknown Error))");
        });
    }

    @Test
    void oneGpuMissingFailsTheCount() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(7)));
        ctx.params(Map.of("count", 8L, "model", "H100"));

        Judged j = run(new GpuInventoryProbe());

        assertThat(j.bad()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPUs");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("found 7 GPUs, expected 8");
        });
    }

    @Test
    void aGpuOfTheWrongModelFails() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(1).put("name", "NVIDIA A100-SXM4-80GB");
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.params(Map.of("count", 2L, "model", "h100"));

        assertThat(run(new GpuInventoryProbe()).bad()).singleElement()
                .satisfies(f -> assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0) is a NVIDIA A100-SXM4-80GB, expected h100"));
    }

    @Test
    void aLinkDownFails() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        @SuppressWarnings("unchecked")
        var links = (List<Map<String, Object>>) gpus.get(2).get("nvlinks");
        links.get(5).put("active", false);
        links.get(11).put("active", false);
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged j = run(new GpuNvlinkProbe());

        assertThat(j.bad()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPU 2");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).isEqualTo("GPU 2 (0000:39:00.0): NVLink 5, 11 down (DCGM: NVLINK_DOWN)");
        });
    }

    @Test
    void nvlinkErrorsGrowingBetweenRunsFail() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0, ZoneOffset.UTC));
        assertThat(run(new GpuNvlinkProbe()).bad()).isEmpty();

        @SuppressWarnings("unchecked")
        var links = (List<Map<String, Object>>) gpus.get(1).get("nvlinks");
        links.get(3).put("replay", 4);
        links.get(3).put("crc_flit", 120);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC));

        Judged j = run(new GpuNvlinkProbe());
        assertThat(j.bad()).extracting(Finding::entity).containsOnly("GPU 1");
        assertThat(j.bad()).extracting(Finding::message).anySatisfy(m -> assertThat(m).contains("4 new NVLink replay errors"));
        assertThat(j.bad()).extracting(Finding::severity).containsOnly(Severity.FAIL);
        assertThat(j.gpu(1).fields()).containsEntry("nvlink_replay_increase", 4L).containsEntry("nvlink_crc_per_sec", 2.0);
    }

    @Test
    void eccCorrectedErrorsRisingBetweenTwoRunsWarnOnTheRate() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.section(gpus.get(0), "ecc").put("volatile_corrected", 10);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0, ZoneOffset.UTC));
        Judged first = run(new GpuEccProbe());
        assertThat(first.bad()).isEmpty();
        assertThat(first.gpu(0).fields()).containsEntry("volatile_corrected", 10L).doesNotContainKey("corrected_per_hour");

        FakeNvml.section(gpus.get(0), "ecc").put("volatile_corrected", 1010);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0.plusSeconds(600), ZoneOffset.UTC));
        Judged second = run(new GpuEccProbe());

        assertThat(second.gpu(0).fields()).containsEntry("corrected_per_hour", 6000.0);
        assertThat(second.bad()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPU 0");
            assertThat(f.severity()).isEqualTo(Severity.WARN);
        });
    }

    @Test
    void aVolatileUncorrectableEccErrorFailsWithResetGpu() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.section(gpus.get(1), "ecc").put("volatile_uncorrected", 2);
        FakeNvml.use(FakeNvml.scenario(gpus));

        assertThat(run(new GpuEccProbe()).bad()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
            assertThat(f.message()).startsWith("GPU 1 (0000:29:00.0): 2 uncorrectable ECC errors");
        });
    }

    @Test
    void hwSlowdownWarnsOnceItPersistsForThreeRuns() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(0).put("clocks_event_reasons", 0x8 | 0x80);
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged first = run(new GpuThermalProbe());
        assertThat(first.gpu(0).fields()).containsEntry("hw_slowdown", true).containsEntry("hw_power_brake", true)
                .containsEntry("hw_thermal_slowdown", false).containsEntry("hw_slowdown_runs", 1L);
        assertThat(first.bad()).isEmpty();
        assertThat(run(new GpuThermalProbe()).bad()).isEmpty();
        Judged third = run(new GpuThermalProbe());
        assertThat(third.bad()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPU 0");
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).contains("hardware clock slowdown in 3 consecutive runs");
        });

        gpus.get(0).put("clocks_event_reasons", 0x1);
        FakeNvml.use(FakeNvml.scenario(gpus));
        assertThat(run(new GpuThermalProbe()).gpu(0).fields()).containsEntry("hw_slowdown_runs", 0L);
    }

    @Test
    void aGpuAboveItsSlowdownTemperatureWarns() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(1).put("temperature", 90);
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged j = run(new GpuThermalProbe());

        assertThat(j.bad()).extracting(Finding::entity).containsOnly("GPU 1");
        assertThat(j.bad()).extracting(Finding::severity).containsOnly(Severity.WARN);
        assertThat(j.bad()).extracting(Finding::message).contains("GPU 1 (0000:29:00.0): at 90C, at or above its slowdown temperature 89C");
    }

    @Test
    void aPendingRowRemapFailsWithResetGpuAndARemapFailureAsksForHardware() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(1).put("remapped_rows", Map.of("correctable", 1, "uncorrectable", 0, "pending", true, "failure", false));
        gpus.get(2).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 512, "pending", false, "failure", true));
        gpus.get(3).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 600, "pending", false, "failure", false));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged j = run(new GpuMemoryRepairProbe());

        Finding pending = j.bad().stream().filter(f -> f.entity().equals("GPU 1")).findFirst().orElseThrow();
        assertThat(pending.severity()).isEqualTo(Severity.FAIL);
        assertThat(pending.remedy()).isEqualTo(Remedy.RESET_GPU);
        Finding failed = j.bad().stream().filter(f -> f.entity().equals("GPU 2") && f.severity() == Severity.FAIL).findFirst().orElseThrow();
        assertThat(failed.remedy()).isEqualTo(Remedy.HARDWARE);
        assertThat(failed.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(j.bad()).filteredOn(f -> f.entity().equals("GPU 3")).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.WARN));
    }

    @Test
    void notSupportedLeavesTheFieldOutAndUnreadablePowerWarns() throws Exception {
        var gpus = FakeNvml.healthyH100s(1);
        gpus.get(0).remove("power_usage_mw");
        gpus.get(0).remove("nvlinks");
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged power = run(new GpuPowerProbe());
        assertThat(power.gpu(0).fields()).containsEntry("power_readable", false).doesNotContainKey("power");
        assertThat(power.bad()).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.WARN));
        Judged repair = run(new GpuMemoryRepairProbe());
        assertThat(repair.gpu(0).fields()).doesNotContainKeys("retired_pages", "retired_pages_pending");
        assertThat(repair.bad()).isEmpty();
        assertThat(run(new GpuNvlinkProbe()).gpu(0).fields()).containsEntry("nvlink_links", 0L);
    }

    @Test
    void otherCallErrorsMakeThatGpuUnknownNotFailed() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(0).put("returns", Map.of("nvmlDeviceGetPowerUsage", 4));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Judged j = run(new GpuPowerProbe());

        assertThat(j.findings()).filteredOn(f -> f.severity() == Severity.UNKNOWN).singleElement()
                .satisfies(f -> assertThat(f.message()).isEqualTo(
                        "GPU 0 (0000:19:00.0): nvmlDeviceGetPowerUsage returned NO_PERMISSION (Insufficient Permissions)"));
    }

    @Test
    void pcieReplaysAboveDcgmsPerLaneLimitWarn() throws Exception {
        Instant t0 = Instant.parse("2026-11-22T04:00:00Z");
        var gpus = FakeNvml.healthyH100s(2);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0, ZoneOffset.UTC));
        assertThat(run(new GpuPcieProbe()).bad()).isEmpty();

        FakeNvml.section(gpus.get(1), "pcie").put("replay_counter", 67 + 100);
        FakeNvml.section(gpus.get(0), "pcie").put("width", 8);
        FakeNvml.use(FakeNvml.scenario(gpus));
        ctx.clock(Clock.fixed(t0.plusSeconds(60), ZoneOffset.UTC));
        Judged j = run(new GpuPcieProbe());

        assertThat(j.gpu(1).fields()).containsEntry("pcie_replays_per_min", 100.0).containsEntry("pcie_replay_rate_exceeded", true);
        assertThat(j.bad()).extracting(Finding::entity).containsExactlyInAnyOrder("GPU 0", "GPU 1");
        assertThat(j.bad()).extracting(Finding::message).contains("GPU 0 (0000:19:00.0): PCIe link runs at x8 of x16");
    }

    @Test
    void probesRunningInParallelShareOneSession() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(8)));
        ExecutorService pool = Executors.newFixedThreadPool(ALL.size());
        try {
            List<Future<Judged>> runs = new java.util.ArrayList<>();
            for (Probe p : ALL) {
                runs.add(pool.submit((Callable<Judged>) () -> run(p)));
            }
            for (Future<Judged> f : runs) {
                assertThat(f.get().bad()).isEmpty();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
