package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every shared nvidia-smi capture, judged twice as {@code nhc} judges it ({@link Pipeline}):
 * replayed straight from the parsed capture (what {@code nhc replay} does), and turned into a
 * fake-NVML scenario and read through the real JNA binding. Both paths must reach the same verdict.
 */
@Tag("fixtures")
class SharedCapturesTest {

    enum Path_ { REPLAY, FAKE_NVML }

    @TempDir
    Path root;

    @AfterAll
    static void close() {
        NvmlSessions.closeAll();
    }

    private static final Map<String, GpuData> KIND = Map.of("gpu.inventory", GpuData.INVENTORY, "gpu.ecc", GpuData.ECC,
            "gpu.memory-repair", GpuData.MEMORY_REPAIR, "gpu.pcie", GpuData.PCIE, "gpu.nvlink", GpuData.NVLINK,
            "gpu.thermal", GpuData.THERMAL, "gpu.power", GpuData.POWER);

    private static GpuCapture capture(String... files) throws Exception {
        GpuCapture capture = null;
        for (String f : files) {
            GpuCapture c = NvidiaSmiCapture.read(Fixtures.nvidiaSmi(f));
            capture = capture == null ? c : capture.merge(c);
        }
        return capture;
    }

    /**
     * Every GPU check, named as its probe. Through the fake NVML only the checks whose data the
     * capture holds: NVML answers NOT_SUPPORTED for the rest (e.g. power in a -d PAGE_RETIREMENT
     * capture), where the replay skips them.
     */
    private Verdict judge(Path_ path, String inventoryWith, String nvlinkWith, String... files) throws Exception {
        GpuCapture capture = capture(files);
        if (path == Path_.REPLAY) {
            return GpuChecks.onCapture(root, capture).run(GpuChecks.everyCheck(inventoryWith, nvlinkWith));
        }
        StringBuilder checks = new StringBuilder();
        for (Probe p : GpuChecks.probes()) {
            String name = p.spec().name();
            if (capture.provides().contains(KIND.get(name))) {
                checks.append(GpuChecks.check(name, name.equals("gpu.inventory") ? inventoryWith : name.equals("gpu.nvlink") ? nvlinkWith : ""));
            }
        }
        FakeNvml.useRaw(FakeNvmlScenario.json(capture));
        return GpuChecks.onFakeNvml(root).run(checks.toString());
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void theEightH100sWarnOnlyForTheHwPowerBrakeEachOfThemShows(Path_ path) throws Exception {
        Verdict v = judge(path, "{ count: 8, model: H100 }", "", "gpud-nvidia-smi-query.535.161.08.out.0.valid.txt");

        // issue 12: every GPU of this capture has 'HW Slowdown: Active' / 'HW Power Brake Slowdown: Active'; one sample is enough
        assertThat(v.severity()).isEqualTo(Severity.WARN);
        assertThat(v.findings()).hasSize(8).allSatisfy(f -> {
            assertThat(f.check()).isEqualTo("gpu.thermal");
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).endsWith("): clocks cut by HW slowdown (HW power brake); check the cooling and the power supply");
        });
        assertThat(v.findings().get(0).message()).startsWith("GPU 0 (0000:19:00.0): ");
        if (path == Path_.REPLAY) {
            assertThat(GpuChecks.skipped(v)).containsExactly("gpu.nvlink");   // nvidia-smi -q shows no link states
        }
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void theA100WithAPendingRowRemapFailsWithResetGpuNamingThatGpu(Path_ path) throws Exception {
        Verdict v = judge(path, "{ count: 4, model: A100 }", "", "thamada-A100SXMx4-nvidia-smi-q.txt");

        assertThat(v.findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.check()).isEqualTo("gpu.memory-repair");
            assertThat(f.entity()).isEqualTo(Entity.gpu(1, "0000:9e:00.0"));
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
            assertThat(f.message()).startsWith("GPU 1 (0000:9e:00.0): a row remap is pending");
        });
        assertThat(v.severity()).isEqualTo(Severity.FAIL);
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void thePageRetirementCaptureWithDbe5Fails(Path_ path) throws Exception {
        Verdict v = judge(path, "", "", "azurehpc-bad_nvsmi8_output.txt");

        List<Finding> fails = v.findings(Severity.FAIL);
        // 60+5, 2+61, 20+45 and 8+56 retired pages reach DCGM's limit of 63; GPU 3 only has a retirement pending
        assertThat(fails).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 0", "GPU 1", "GPU 5", "GPU 7");
        Finding gpu0 = fails.stream().filter(f -> f.entity().label().equals("GPU 0")).findFirst().orElseThrow();
        assertThat(gpu0.message()).isEqualTo("GPU 0 (0001:00:00.0): 65 retired pages, the limit is 63 (DCGM: RETIRED_PAGES_LIMIT)");
        assertThat(v.findings(Severity.WARN)).extracting(f -> f.entity().label()).containsExactly("GPU 3");
        if (path == Path_.REPLAY) {
            assertThat(GpuChecks.skipped(v)).containsExactlyInAnyOrder("gpu.inventory", "gpu.ecc", "gpu.pcie", "gpu.nvlink", "gpu.thermal", "gpu.power");
        }
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void thePageRetirementCaptureWithNothingRetiredPasses(Path_ path) throws Exception {
        assertThat(judge(path, "", "", "azurehpc-orig_nvsmi8_output.txt").findings()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void nvlinkStatusWithAllLinksUpPassesAndAllInactiveFails(Path_ path) throws Exception {
        assertThat(judge(path, "", "", "gpud-nvlink-status-a100.txt").findings()).isEmpty();
        assertThat(judge(path, "", "", "azurehpc-good_nvlink_status.txt").findings()).isEmpty();

        Verdict bad = judge(path, "", "", "azurehpc-bad_nvlink_status.txt");
        assertThat(bad.findings(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("gpu.nvlink");
            assertThat(f.entity().label()).isEqualTo("GPU 6");
        });
    }

    @Test
    void theNvlinkStatusOfGpu6AloneIsJudgedAsGpu6AloneNotSevenGpus() throws Exception {
        // issue 12: a capture holding one GPU must not invent GPUs 0-5, which an expected link count would fail
        Verdict v = judge(Path_.REPLAY, "{ count: 8 }", "{ expected_links: 12 }", "azurehpc-bad_nvlink_status.txt");

        assertThat(Pipeline.result(v, "gpu.nvlink").observations()).extracting(o -> o.entity().label()).containsExactly("GPU 6");
        assertThat(v.findings()).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 6");
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).isEqualTo("GPU 6: NVLink 0 down (DCGM: NVLINK_DOWN)");
        });
        assertThat(GpuChecks.skipped(v)).contains("gpu.inventory");
    }

    @Test
    void capturesOfDifferentNodesAreNotMixed() {
        assertThatThrownBy(() -> capture("thamada-A100SXMx4-nvidia-smi-q.txt", "gpud-nvlink-status-a100.txt"))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("GPU 0 is GPU-")
                .hasMessageContaining("the captures are of different nodes");
    }

    @Test
    void theTruncatedGarbledCaptureIsJudgedOnItsFirstGpuAndSaysWhatItLacks() throws Exception {
        Path invalid = Fixtures.nvidiaSmi("gpud-nvidia-smi-query.535.183.01.out.0.invalid.txt");

        GpuCapture c = NvidiaSmiCapture.read(invalid);
        assertThat(c.gpus()).hasSize(1);
        assertThat(NvidiaSmiQParserTest.gaps(c)).anySatisfy(g -> assertThat(g).startsWith("ALL on GPUS: the capture ends after 1 of the 8 GPUs"
                        + " 'Attached GPUs' announces (line 7, last line 91)"))
                .anySatisfy(g -> assertThat(g).contains("line 86: expected a clock event reason (Idle, ").contains("found 'Invalid HW Slowdown'"));
        Verdict v = GpuChecks.onCapture(root, c).run(GpuChecks.everyCheck("{ count: 8 }", ""));
        assertThat(v.severity()).as("never a pass: the capture lacks 7 GPUs").isNotEqualTo(Severity.PASS);
    }

    @Test
    void everyCaptureIsReadAndOnlyTheGarbledOneHasGaps() throws Exception {
        try (Stream<Path> files = Files.list(Fixtures.dir().resolve("nvidia-smi"))) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                GpuCapture c = NvidiaSmiCapture.read(f);
                assertThat(c.gpus()).as(name).isNotEmpty();
                assertThat(c.gaps().isEmpty()).as(name + " " + c.gaps()).isEqualTo(!name.contains("invalid"));
            }
        }
    }
}
