package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.AllGpuProbes;
import dev.nhc.checks.gpu.AllGpuProbes.Outcome;
import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.engine.testing.TestProbeContext;
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
 * Every shared nvidia-smi capture, judged twice: replayed straight from the parsed capture (what
 * {@code nhc replay} does), and turned into a fake-NVML scenario and read through the real JNA
 * binding. Both paths must reach the same verdict.
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

    private Outcome judge(Path_ path, Map<String, Object> params, String... files) throws Exception {
        GpuCapture capture = null;
        for (String f : files) {
            GpuCapture c = NvidiaSmiQParser.parse(Fixtures.nvidiaSmi(f));
            capture = capture == null ? c : capture.merge(c);
        }
        TestProbeContext ctx = new TestProbeContext(root).params(params);
        if (path == Path_.REPLAY) {
            ctx.service(GpuSource.class, new CaptureGpuSource(capture));
        } else {
            FakeNvml.useRaw(FakeNvmlScenario.json(capture));
            ctx.setting("nvml_library", FakeNvml.library());
        }
        Outcome o = AllGpuProbes.run(ctx);
        if (path == Path_.FAKE_NVML) {
            // NVML answers NOT_SUPPORTED for what a partial capture lacks (e.g. power in a -d PAGE_RETIREMENT
            // capture); the replay skips those checks instead, so compare the checks the capture has data for.
            GpuCapture c = capture;
            o = new Outcome(o.findings().stream().filter(f -> c.provides().contains(KIND.get(f.check()))).toList(), o.skipped());
        }
        return o;
    }

    private static final Map<String, GpuData> KIND = Map.of("gpu.inventory", GpuData.INVENTORY, "gpu.ecc", GpuData.ECC,
            "gpu.memory-repair", GpuData.MEMORY_REPAIR, "gpu.pcie", GpuData.PCIE, "gpu.nvlink", GpuData.NVLINK,
            "gpu.thermal", GpuData.THERMAL, "gpu.power", GpuData.POWER);

    @ParameterizedTest
    @EnumSource(Path_.class)
    void theHealthyEightH100sPass(Path_ path) throws Exception {
        Outcome o = judge(path, Map.of("count", 8L, "model", "H100"), "gpud-nvidia-smi-query.535.161.08.out.0.valid.txt");

        assertThat(o.findings()).isEmpty();
        assertThat(o.severity()).isEqualTo(Severity.PASS);
        if (path == Path_.REPLAY) {
            assertThat(o.skipped()).containsExactly("gpu.nvlink");   // nvidia-smi -q shows no link states
        }
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void theA100WithAPendingRowRemapFailsWithResetGpuNamingThatGpu(Path_ path) throws Exception {
        Outcome o = judge(path, Map.of("count", 4L), "thamada-A100SXMx4-nvidia-smi-q.txt");

        assertThat(o.at(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("gpu.memory-repair");
            assertThat(f.entity()).isEqualTo("GPU 1");
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
            assertThat(f.message()).startsWith("GPU 1 (0000:9e:00.0): a row remap is pending");
        });
        assertThat(o.severity()).isEqualTo(Severity.FAIL);
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void thePageRetirementCaptureWithDbe5Fails(Path_ path) throws Exception {
        Outcome o = judge(path, Map.of(), "azurehpc-bad_nvsmi8_output.txt");

        List<Finding> fails = o.at(Severity.FAIL);
        // 60+5, 2+61, 20+45 and 8+56 retired pages reach DCGM's limit of 63; GPU 3 only has a retirement pending
        assertThat(fails).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 0", "GPU 1", "GPU 5", "GPU 7");
        Finding gpu0 = fails.stream().filter(f -> f.entity().label().equals("GPU 0")).findFirst().orElseThrow();
        assertThat(gpu0.message()).isEqualTo("GPU 0 (0001:00:00.0): 65 retired pages, at the limit of 63 (DCGM: RETIRED_PAGES_LIMIT)");
        assertThat(o.at(Severity.WARN)).extracting(f -> f.entity().label()).containsExactly("GPU 3");
        if (path == Path_.REPLAY) {
            assertThat(o.skipped()).containsExactlyInAnyOrder("gpu.inventory", "gpu.ecc", "gpu.pcie", "gpu.nvlink", "gpu.thermal", "gpu.power");
        }
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void thePageRetirementCaptureWithNothingRetiredPasses(Path_ path) throws Exception {
        Outcome o = judge(path, Map.of(), "azurehpc-orig_nvsmi8_output.txt");

        assertThat(o.findings()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Path_.class)
    void nvlinkStatusWithAllLinksUpPassesAndAllInactiveFails(Path_ path) throws Exception {
        assertThat(judge(path, Map.of(), "gpud-nvlink-status-a100.txt").findings()).isEmpty();
        assertThat(judge(path, Map.of(), "azurehpc-good_nvlink_status.txt").findings()).isEmpty();

        Outcome bad = judge(path, Map.of(), "azurehpc-bad_nvlink_status.txt");
        assertThat(bad.at(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("gpu.nvlink");
            assertThat(f.entity()).isEqualTo("GPU 6");
        });
    }

    @Test
    void capturesOfDifferentNodesAreNotMixed() throws Exception {
        assertThatThrownBy(() -> judge(Path_.REPLAY, Map.of(), "thamada-A100SXMx4-nvidia-smi-q.txt", "gpud-nvlink-status-a100.txt"))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("GPU 0 is GPU-")
                .hasMessageContaining("the captures are of different nodes");
    }

    @Test
    void theTruncatedGarbledCaptureIsUnreadableAndSaysWhere() throws Exception {
        Path invalid = Fixtures.nvidiaSmi("gpud-nvidia-smi-query.535.183.01.out.0.invalid.txt");

        assertThatThrownBy(() -> NvidiaSmiQParser.parse(invalid))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageStartingWith(invalid + " is not a readable nvidia-smi capture: ")
                .hasMessageContaining("line 91: the capture ends after 1 of the 8 GPUs 'Attached GPUs' announces (line 7)")
                .hasMessageContaining("line 86: expected a clock event reason (Idle, ")
                .hasMessageContaining("found 'Invalid HW Slowdown'");
    }

    @Test
    void everyCaptureIsEitherReadOrReportedUnreadable() throws Exception {
        try (Stream<Path> files = Files.list(Fixtures.dir().resolve("nvidia-smi"))) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".csv") || name.contains("invalid")) {
                    assertThatThrownBy(() -> NvidiaSmiQParser.parse(f)).as(name).isInstanceOf(CaptureParseException.class);
                } else {
                    assertThat(NvidiaSmiQParser.parse(f).gpus()).as(name).isNotEmpty();
                }
            }
        }
    }
}
