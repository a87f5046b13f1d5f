package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.FakeAmdSmi;
import dev.nhc.checks.gpu.FakeGpus;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.capture.CaptureParseException;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code amd-smi} and {@code rocm-smi} captures as {@code nhc replay} reads them: the real public
 * captures (src/test/resources/captures/amd, with their SOURCES), and amd-smi's JSON of the fake
 * MI300Xs, which must reach the verdict the live library reaches on the same GPUs.
 */
class AmdSmiCaptureTest {
    private static final String CONFIG = """
            - { name: gpus, use: gpu.inventory, with: { count: 8 } }
            - { name: gpu-ecc, use: gpu.ecc }
            - { name: gpu-memory, use: gpu.memory-repair }
            - { name: gpu-thermal, use: gpu.thermal }
            - { name: gpu-pcie, use: gpu.pcie }
            - { name: gpu-links, use: gpu.links }
            - { name: gpu-power, use: gpu.power }
            """;

    @TempDir
    Path root;

    @AfterAll
    static void close() {
        AmdSmiSessions.closeAll();
        NvmlSessions.closeAll();
    }

    private static Path capture(String name) {
        return Path.of("src/test/resources/captures/amd").resolve(name);
    }

    private Verdict replay(AmdSmiCapture capture, String config) throws Exception {
        return new Pipeline(root, GpuChecks.anyVendorProbes()).service(GpuSource.class, capture).run(config);
    }

    @Test
    void aRealRocmSmiCaptureOfFourMi100sIsReadAndPasses() throws Exception {
        AmdSmiCapture c = AmdSmiCaptureParser.parse(capture("rocm-smi-mi100-rocm602.json"));

        assertThat(c.devices()).hasSize(4);
        assertThat(c.driverVersion()).isEqualTo("6.3.6");
        assertThat(c.pciBusIds()).containsEntry(0, "0000:83:00.0").containsEntry(3, "0000:e3:00.0");
        GpuDevice g = c.devices().get(1);
        assertThat(g.name()).isEqualTo("Arcturus GL-XL [Instinct MI100]");
        assertThat(g.firmwareVersion()).isEqualTo("113-D3431401-101");
        assertThat(g.temperature()).isEqualTo(58L);
        assertThat(g.memoryTemperature()).isEqualTo(54L);
        assertThat(g.pcieGeneration()).isEqualTo(4L);
        assertThat(g.pcieWidth()).isEqualTo(16L);
        assertThat(g.pcieReplays()).isZero();
        assertThat(g.powerUsageMilliwatts()).isEqualTo(44_000L);
        assertThat(g.enforcedPowerLimitMilliwatts()).isEqualTo(290_000L);
        assertThat(c.provided()).containsExactlyInAnyOrder(GpuData.INVENTORY, GpuData.THERMAL, GpuData.PCIE, GpuData.POWER);

        Verdict v = replay(c, CONFIG.replace("count: 8", "count: 4"));
        assertThat(v.severity()).as(v.findings().toString()).isEqualTo(Severity.PASS);
        // rocm-smi shows no ECC, bad pages or XGMI status: those checks are skipped, never passed
        assertThat(GpuChecks.skipped(v)).containsExactlyInAnyOrder("gpu-ecc", "gpu-memory", "gpu-links");
        assertThat(result(v, "gpus").observations().get(0).fields()).containsEntry("gpu_count", 4L).containsEntry("gpu_vendors", "AMD");
    }

    @Test
    void aRealBadPagesTextCaptureFeedsTheMemoryCheckAlone() throws Exception {
        AmdSmiCapture c = AmdSmiCaptureParser.parse(capture("amd-smi-bad-pages-mi300x.txt"));

        assertThat(c.devices()).hasSize(2);
        assertThat(c.devices().get(1).badPages()).isEqualTo(new GpuDevice.BadPages(0, 0, 0));
        assertThat(c.provided()).containsExactly(GpuData.MEMORY_REPAIR);
        Verdict v = replay(c, CONFIG);
        assertThat(result(v, "gpu-memory").status()).isEqualTo(CheckStatus.COMPLETED);
        assertThat(result(v, "gpu-memory").severity()).isEqualTo(Severity.PASS);
        assertThat(GpuChecks.skipped(v)).contains("gpu-ecc", "gpu-thermal", "gpu-pcie", "gpu-power");
    }

    /** The three captures a ticket would hold, for the fake GPUs {@code gpus}, in both of amd-smi's JSON layouts. */
    private AmdSmiCapture amdSmi(List<Map<String, Object>> gpus, boolean gpuData, boolean badPagesAsText) throws Exception {
        AmdSmiCapture s = AmdSmiCaptureParser.parse("static.json", AmdSmiOutput.staticJson(gpus, gpuData));
        AmdSmiCapture m = AmdSmiCaptureParser.parse("metric.json", AmdSmiOutput.metricJson(gpus, gpuData));
        AmdSmiCapture b = badPagesAsText ? AmdSmiCaptureParser.parse("bad-pages.txt", AmdSmiOutput.badPagesText(gpus))
                : AmdSmiCaptureParser.parse("bad-pages.json", AmdSmiOutput.badPagesJson(gpus));
        return s.merge(m).merge(b);
    }

    @Test
    void amdSmiJsonOfEightMi300xsReadsAsTheLibraryReadsThem() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        FakeAmdSmi.section(gpus.get(2), "ecc").put("UMC", FakeAmdSmi.counts(3, 1, 2));
        AmdSmiCapture c = amdSmi(gpus, true, false);

        assertThat(c.source()).isEqualTo("static.json + metric.json + bad-pages.json");
        assertThat(c.driverVersion()).isEqualTo("6.8.5");
        GpuDevice g = c.devices().get(2);
        assertThat(g.label()).isEqualTo("GPU 2 (" + FakeAmdSmi.pci(2) + ")");
        assertThat(g.name()).isEqualTo("AMD Instinct MI300X");
        assertThat(g.eccEnabled()).isTrue();
        assertThat(g.eccErrors(EccCounter.VOLATILE, EccError.UNCORRECTED, EccBlock.DRAM)).isEqualTo(1L);
        assertThat(g.eccErrors(EccCounter.VOLATILE, EccError.DEFERRED, null)).isEqualTo(2L);
        assertThat(g.eccErrors(EccCounter.AGGREGATE, EccError.UNCORRECTED, null)).isNull();
        assertThat(g.pcieMaxGeneration()).isEqualTo(5L);
        assertThat(g.pcieGeneration()).isEqualTo(5L);
        assertThat(g.temperatureThreshold(TemperatureThreshold.SLOWDOWN)).isEqualTo(100L);
        assertThat(g.temperatureThreshold(TemperatureThreshold.SHUTDOWN)).isEqualTo(110L);
        assertThat(g.throttle().names()).isEqualTo("none");
        assertThat(g.linkErrorStatus()).isEqualTo("no errors");
        assertThat(g.enforcedPowerLimitMilliwatts()).isEqualTo(750_000L);
    }

    /** Each fault, judged from the live (fake) library and from amd-smi's captures of the same GPUs: the same findings. */
    @Test
    void eachFaultReadFromCapturesReachesTheVerdictOfTheLiveLibrary() throws Exception {
        List<Consumer<List<Map<String, Object>>>> faults = List.of(
                gpus -> { },
                gpus -> FakeAmdSmi.section(gpus.get(2), "ecc").put("UMC", FakeAmdSmi.counts(0, 1, 0)),
                gpus -> gpus.get(4).put("bad_pages", List.of("reserved", "pending")),
                gpus -> gpus.get(6).put("bad_pages", List.of("unreservable")),
                gpus -> FakeAmdSmi.section(gpus.get(1), "temperature").put("hotspot", 104),
                gpus -> FakeAmdSmi.section(gpus.get(1), "violations").put("prochot", 1),
                gpus -> FakeAmdSmi.section(gpus.get(3), "pcie").put("width", 8),
                gpus -> gpus.get(5).put("xgmi_error_status", 1),
                gpus -> gpus.remove(7));
        int n = 0;
        for (Consumer<List<Map<String, Object>>> fault : faults) {
            var gpus = FakeAmdSmi.healthyMi300xs(8);
            fault.accept(gpus);
            FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));
            Verdict live = FakeGpus.pipeline(root.resolve("live" + n), GpuChecks.anyVendorProbes()).run(CONFIG);
            Verdict replayed = new Pipeline(root.resolve("replay" + n), GpuChecks.anyVendorProbes())
                    .service(GpuSource.class, amdSmi(gpus, n % 2 == 0, n % 3 == 0)).run(CONFIG);
            assertThat(bad(live).isEmpty()).as("fault " + n + ": " + bad(live)).isEqualTo(n == 0);
            assertThat(bad(replayed)).as("fault " + n).isEqualTo(bad(live));
            assertThat(replayed.severity()).as("fault " + n).isEqualTo(live.severity());
            n++;
        }
    }

    /** Each check's failing and warning findings as check: message. */
    private static Map<String, List<String>> bad(Verdict v) {
        Map<String, List<String>> out = new TreeMap<>();
        for (CheckResult r : v.checks()) {
            List<String> messages = new ArrayList<>();
            for (Finding f : r.findings()) {
                if (f.severity() != Severity.PASS) {
                    messages.add(f.severity() + " " + f.message());
                }
            }
            if (!messages.isEmpty()) {
                out.put(r.name(), messages);
            }
        }
        return out;
    }

    @Test
    void whatCannotBeReadIsAnErrorNamingTheGpuAndTheKeyNeverAPass() {
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("m.json", "[{\"gpu\": 0, \"temperature\": {\"hotspot\": {\"value\": \"hot\", \"unit\": \"C\"}}}]"))
                .isInstanceOf(CaptureParseException.class)
                .hasMessage("m.json is not a readable amd-smi capture: GPU 0: temperature.hotspot is hot, expected a number or N/A");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("m.json", "[{\"gpu\": 0, \"temperature\": {\"hotspot\": {\"value\": 98, \"unit\": \"F\"}}}]"))
                .hasMessageContaining("GPU 0: temperature.hotspot is in F, expected C");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("m.json", "[{\"gpu\": 0,\n \"ecc\": {"))
                .hasMessageContaining("line 2, column");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("s.txt", "GPU: 0\n    ASIC:\n        MARKET_NAME: MI300X-O\n"))
                .hasMessageContaining("line 2: 'ASIC:' is not amd-smi bad-pages output")
                .hasMessageContaining("capture it with --json");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("b.txt", "GPU: 0\n    RETIRED: maybe\n    PENDING: No bad pages found.\n"))
                .hasMessageContaining("line 2: RETIRED is 'maybe'");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("x.txt", "Tue Nov 26 10:00:00 2024\n+----+\n"))
                .hasMessageContaining("neither amd-smi output");
        assertThatThrownBy(() -> AmdSmiCaptureParser.parse("e.json", "[]")).hasMessageContaining("it shows no GPU");
    }

    @Test
    void capturesOfDifferentNodesAreNotMerged() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(2);
        AmdSmiCapture a = AmdSmiCaptureParser.parse("a.json", AmdSmiOutput.staticJson(gpus, false));
        gpus.get(1).put("bdf", "0000:99:00.0");
        AmdSmiCapture b = AmdSmiCaptureParser.parse("b.json", AmdSmiOutput.staticJson(gpus, false));
        assertThatThrownBy(() -> a.merge(b)).hasMessage("GPU 1 is " + FakeAmdSmi.pci(1) + " in a.json but 0000:99:00.0 in b.json: "
                + "the captures are of different nodes");
    }

    @Test
    void theKindOfACaptureIsToldFromItsText() throws Exception {
        assertThat(AmdSmiCaptureParser.kindOf(Files.readString(capture("rocm-smi-mi100-rocm602.json")))).isEqualTo("rocm-smi --json");
        assertThat(AmdSmiCaptureParser.kindOf(Files.readString(capture("amd-smi-bad-pages-mi300x.txt")))).isEqualTo("amd-smi bad-pages");
        assertThat(AmdSmiCaptureParser.kindOf(AmdSmiOutput.metricJson(FakeAmdSmi.healthyMi300xs(1), true))).isEqualTo("amd-smi --json");
        assertThat(AmdSmiCaptureParser.kindOf("==============NVSMI LOG==============\n")).isNull();
    }
}
