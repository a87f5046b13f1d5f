package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.capture.GpuCapture;
import dev.nhc.checks.gpu.capture.NvidiaSmiCapture;
import dev.nhc.checks.gpu.capture.SmiQText;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static dev.nhc.rules.testing.Pipeline.about;
import static dev.nhc.rules.testing.Pipeline.only;
import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GPU verdicts issue 12 found false, each on the fake NVML and on a capture written here
 * (the shared real captures are judged in SharedCapturesTest): a GPU at rest on a slower PCIe
 * link, a HW power brake seen once, a capture of one GPU read as eight, persistence mode off.
 */
class GpuFalseVerdictsTest {
    static final String UUID0 = "GPU-5269b708-678a-b1a8-60f0-c90406537486";
    static final String UUID1 = "GPU-a7605225-d684-1f65-4ad4-ee2ab39338b4";

    @TempDir
    Path root;

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    private static Map<String, Object> pcie(Map<String, Object> gpu) {
        return FakeNvml.section(gpu, "pcie");
    }

    private Verdict replay(String capture, String checks) throws Exception {
        GpuCapture c = NvidiaSmiCapture.parse("capture.txt", capture);
        return GpuChecks.onCapture(root, c).run(checks);
    }

    // ---- 4. PCIe generation downshift at idle is not a fault

    @Test
    void aGpuAtRestOnASlowerLinkIsPowerSavingButABusyOneOrFewerLanesWarn() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(0).put("performance_state", 8);
        pcie(gpus.get(0)).put("gen", 1);
        pcie(gpus.get(1)).put("gen", 4);
        gpus.get(2).put("performance_state", 8);
        gpus.get(2).put("utilization", Map.of("gpu", 35));
        pcie(gpus.get(2)).put("gen", 1);
        gpus.get(3).put("performance_state", 8);
        pcie(gpus.get(3)).put("width", 8);
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = GpuChecks.onFakeNvml(root).run(GpuChecks.check("gpu.pcie", ""));

        assertThat(about(v, "gpu.pcie", "GPU 0").severity()).isEqualTo(Severity.PASS);
        assertThat(result(v, "gpu.pcie").observations().get(0).fields()).containsEntry("pcie_gen_degraded", true)
                .containsEntry("performance_state", 8L).containsEntry("gpu_utilization", 0L);
        assertThat(about(v, "gpu.pcie", "GPU 1").message())
                .isEqualTo("GPU 1 (0000:29:00.0): PCIe link runs at Gen4 of Gen5 while the GPU is busy (P0, 0% utilisation)");
        assertThat(about(v, "gpu.pcie", "GPU 2").message())
                .isEqualTo("GPU 2 (0000:39:00.0): PCIe link runs at Gen1 of Gen5 while the GPU is busy (P8, 35% utilisation)");
        assertThat(about(v, "gpu.pcie", "GPU 3")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 3 (0000:49:00.0): PCIe link runs at x8 of x16");
        });
    }

    @Test
    void aCapturedGpuInP8AtGen1OfGen4PassesAndOneAtWorkOnGen3Warns() throws Exception {
        String capture = SmiQText.query(
                SmiQText.gpu("00000000:68:00.0", UUID0).link("1", "4", "16x", "16x").busy("P8", "0 %"),
                SmiQText.gpu("00000000:9E:00.0", UUID1).link("3", "4", "16x", "16x").busy("P0", "100 %"));

        Verdict v = replay(capture, GpuChecks.check("gpu.pcie", ""));

        assertThat(about(v, "gpu.pcie", "GPU 0").severity()).isEqualTo(Severity.PASS);
        assertThat(v.findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 1 (0000:9e:00.0): PCIe link runs at Gen3 of Gen4 while the GPU is busy (P0, 100% utilisation)");
        });
    }

    @Test
    void withoutThePerformanceStateTheGenerationIsNotJudgedButTheWidthIs() throws Exception {
        String capture = SmiQText.query(SmiQText.gpu("00000000:68:00.0", UUID0).link("1", "4", "8x", "16x"));

        assertThat(only(replay(capture, GpuChecks.check("gpu.pcie", "")), "gpu.pcie").message())
                .isEqualTo("GPU 0 (0000:68:00.0): PCIe link runs at x8 of x16");
    }

    // ---- 6. HW slowdown / HW power brake is a warn in a single sample, naming the reason

    @Test
    void aHardwareClockEventWarnsInOneSampleNamingTheReason() throws Exception {
        var gpus = FakeNvml.healthyH100s(4);
        gpus.get(0).put("clocks_event_reasons", 0x8 | 0x80);
        gpus.get(1).put("clocks_event_reasons", 0x8 | 0x40);
        gpus.get(2).put("clocks_event_reasons", 0x1 | 0x4);
        gpus.get(3).put("clocks_event_reasons", 0x8);
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = GpuChecks.onFakeNvml(root).run(GpuChecks.check("gpu.thermal", ""));

        assertThat(about(v, "gpu.thermal", "GPU 0")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 0 (0000:19:00.0): clocks cut by HW slowdown (HW power brake); "
                    + "check the cooling and the power supply");
        });
        assertThat(about(v, "gpu.thermal", "GPU 1").message()).startsWith("GPU 1 (0000:29:00.0): clocks cut by HW slowdown (HW thermal slowdown);");
        assertThat(about(v, "gpu.thermal", "GPU 2").severity()).isEqualTo(Severity.PASS);
        assertThat(about(v, "gpu.thermal", "GPU 3").message()).startsWith("GPU 3 (0000:49:00.0): clocks cut by HW slowdown;");
        assertThat(result(v, "gpu.thermal").observations().get(2).fields())
                .containsEntry("clocks_event_reason_names", "idle, SW power cap").containsEntry("hw_slowdown_reasons", "none");
    }

    @Test
    void aCaptureOfGpusUnderTheHwPowerBrakeWarnsForEach() throws Exception {
        String capture = SmiQText.query(
                SmiQText.gpu("00000000:68:00.0", UUID0).clockEvents("Not Active", "Active", "Not Active", "Active"),
                SmiQText.gpu("00000000:9E:00.0", UUID1).clockEvents("Not Active", "Active", "Not Active", "Active"));

        Verdict v = replay(capture, GpuChecks.everyCheck("{ count: 2, model: A100 }", ""));

        assertThat(v.severity()).isEqualTo(Severity.WARN);
        assertThat(v.findings()).extracting(Finding::check, Finding::message).containsExactly(
                org.assertj.core.groups.Tuple.tuple("gpu.thermal", "GPU 0 (0000:68:00.0): clocks cut by HW slowdown (HW power brake); "
                        + "check the cooling and the power supply"),
                org.assertj.core.groups.Tuple.tuple("gpu.thermal", "GPU 1 (0000:9e:00.0): clocks cut by HW slowdown (HW power brake); "
                        + "check the cooling and the power supply"));
    }

    @Test
    void aSiteThatWantsTheSlowdownToPersistSaysSoAndWarnNoneDropsTheWarnings() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(0).put("clocks_event_reasons", 0x8 | 0x80);
        gpus.get(1).put("temperature", 90);
        FakeNvml.use(FakeNvml.scenario(gpus));
        Pipeline p = GpuChecks.onFakeNvml(root);
        String persisting = "- { name: thermal, use: gpu.thermal, warn: { hw_slowdown_runs: \">= 3\" } }";

        // the config's warn: replaces every default WARN rule: neither the single sample nor the temperature warns
        assertThat(p.run(persisting).findings()).isEmpty();
        assertThat(p.run(persisting).findings()).isEmpty();
        assertThat(p.run(persisting).findings()).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo(Entity.gpu(0, "0000:19:00.0"));
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 0: hw_slowdown_runs 3 >= 3");
        });

        assertThat(p.run("- { name: quiet, use: gpu.thermal, warn: none }").findings()).isEmpty();
    }

    // ---- 8. Replay must not invent GPUs

    @Test
    void aCaptureOfOneGpuIsJudgedAsThatGpuAlone() throws Exception {
        String gpu7 = "GPU 7: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000007)\n"
                + "\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n\t Link 2: <inactive>\n";

        Verdict v = replay(gpu7, GpuChecks.everyCheck("{ count: 8 }", "{ expected_links: 3 }"));

        assertThat(GpuChecks.skipped(v)).containsExactlyInAnyOrder("gpu.inventory", "gpu.ecc", "gpu.memory-repair", "gpu.pcie",
                "gpu.thermal", "gpu.power");
        assertThat(result(v, "gpu.nvlink").observations()).extracting(o -> o.entity())
                .containsExactly(Entity.gpu(7, null));
        assertThat(v.findings()).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 7");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).isEqualTo("GPU 7: NVLink 2 down (DCGM: NVLINK_DOWN)");
        });

        Verdict up = replay(gpu7.replace("<inactive>", "26.562 GB/s"), GpuChecks.everyCheck("{ count: 8 }", "{ expected_links: 3 }"));
        assertThat(up.severity()).isEqualTo(Severity.PASS);
        assertThat(result(up, "gpu.nvlink").findings()).hasSize(1);
    }

    @Test
    void anNvlinkCaptureOfOneGpuBesideAFullQueryJudgesOnlyThatGpusLinks() throws Exception {
        GpuCapture q = NvidiaSmiCapture.parse("smi.txt", SmiQText.query(SmiQText.gpu("00000000:68:00.0", UUID0),
                SmiQText.gpu("00000000:9E:00.0", UUID1)));
        GpuCapture links = NvidiaSmiCapture.parse("nvlink-1.txt", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: " + UUID1 + ")\n"
                + "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n");

        Verdict v = GpuChecks.onCapture(root, q.merge(links)).run(GpuChecks.everyCheck("{ count: 2 }", "{ expected_links: 2 }"));

        assertThat(result(v, "gpu.nvlink").observations()).extracting(o -> o.entity().label()).containsExactly("GPU 1");
        assertThat(Pipeline.severity(v, "gpu.inventory")).isEqualTo(Severity.PASS);
        assertThat(result(v, "gpu.inventory").observations().get(0).fields()).containsEntry("gpu_count", 2L);
        assertThat(v.severity()).isEqualTo(Severity.PASS);
    }

    // ---- 9. Persistence mode off stays a warn, with the fix in the message

    @Test
    void persistenceModeOffWarnsAndSaysHowToTurnItOn() throws Exception {
        var gpus = FakeNvml.healthyH100s(2);
        gpus.get(1).put("persistence_mode", false);
        FakeNvml.use(FakeNvml.scenario(gpus));
        String fix = "GPU 1 (0000:29:00.0): persistence mode is off, so the driver sets the GPU up again for every job; "
                + "turn it on with 'systemctl enable --now nvidia-persistenced' (or 'nvidia-smi -pm 1')";

        Verdict live = GpuChecks.onFakeNvml(root).run(GpuChecks.check("gpu.inventory", "{ count: 2 }"));

        assertThat(live.findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo(fix);
        });

        Verdict replayed = replay(SmiQText.query(SmiQText.gpu("00000000:68:00.0", UUID0),
                SmiQText.gpu("00000000:29:00.0", UUID1).persistence("Disabled")), GpuChecks.check("gpu.inventory", "{ count: 2 }"));
        assertThat(replayed.findings()).extracting(Finding::severity, Finding::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Severity.WARN, fix));
    }
}
