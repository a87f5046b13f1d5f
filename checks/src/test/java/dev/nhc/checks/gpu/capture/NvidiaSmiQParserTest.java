package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.AllGpuProbes;
import dev.nhc.checks.gpu.AllGpuProbes.Outcome;
import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.MemoryLocation;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The nvidia-smi parser on small captures written here, in nvidia-smi's own layout. */
class NvidiaSmiQParserTest {

    @TempDir
    Path root;

    @AfterAll
    static void close() {
        NvmlSessions.closeAll();
    }

    /** One GPU block as driver 535 prints it (abridged to the sections nhc reads, plus a few it ignores). */
    static String gpu(String bus, String uuid, String remapPending, String powerDraw, String hwSlowdown) {
        return "GPU " + bus + "\n"
                + "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
                + "    Persistence Mode                      : Enabled\n"
                + "    GPU UUID                              : " + uuid + "\n"
                + "    PCI\n"
                + "        Bus Id                            : " + bus + "\n"
                + "        GPU Link Info\n"
                + "            PCIe Generation\n"
                + "                Max                       : 4\n"
                + "                Current                   : 4\n"
                + "                Host Max                  : N/A\n"
                + "            Link Width\n"
                + "                Max                       : 16x\n"
                + "                Current                   : 16x\n"
                + "        Replays Since Reset               : 0\n"
                + "    Clocks Event Reasons\n"
                + "        Idle                              : Active\n"
                + "        HW Slowdown                       : " + hwSlowdown + "\n"
                + "            HW Thermal Slowdown           : Not Active\n"
                + "            HW Power Brake Slowdown       : " + hwSlowdown + "\n"
                + "    ECC Mode\n"
                + "        Current                           : Enabled\n"
                + "        Pending                           : Enabled\n"
                + "    ECC Errors\n"
                + "        Volatile\n"
                + "            SRAM Correctable              : 0\n"
                + "            SRAM Uncorrectable Parity     : 0\n"
                + "            SRAM Uncorrectable SEC-DED    : 0\n"
                + "            DRAM Correctable              : 353\n"
                + "            DRAM Uncorrectable            : 0\n"
                + "        Aggregate\n"
                + "            SRAM Correctable              : [N/A]\n"
                + "            DRAM Correctable              : 353\n"
                + "            DRAM Uncorrectable            : 0\n"
                + "    Retired Pages\n"
                + "        Single Bit ECC                    : N/A\n"
                + "        Double Bit ECC                    : N/A\n"
                + "        Pending Page Blacklist            : N/A\n"
                + "    Remapped Rows\n"
                + "        Correctable Error                 : 1\n"
                + "        Uncorrectable Error               : 0\n"
                + "        Pending                           : " + remapPending + "\n"
                + "        Remapping Failure Occurred        : No\n"
                + "    Temperature\n"
                + "        GPU Current Temp                  : 25 C\n"
                + "        GPU T.Limit Temp                  : N/A\n"
                + "        GPU Shutdown Temp                 : 92 C\n"
                + "        GPU Slowdown Temp                 : 89 C\n"
                + "        GPU Max Operating Temp            : 85 C\n"
                + "        Memory Current Temp               : 43 C\n"
                + "        Memory Max Operating Temp         : 95 C\n"
                + "    GPU Power Readings\n"
                + "        Power Draw                        : " + powerDraw + "\n"
                + "        Current Power Limit               : 500.00 W\n"
                + "    Processes                             : None\n\n";
    }

    static String query(int attached, String... blocks) {
        return "\n==============NVSMI LOG==============\n\nTimestamp                                 : Thu Nov 14 10:45:47 2024\n"
                + "Driver Version                            : 555.42.02\n\nAttached GPUs                             : " + attached + "\n"
                + String.join("", blocks);
    }

    static final String UUID0 = "GPU-5269b708-678a-b1a8-60f0-c90406537486";
    static final String UUID1 = "GPU-a7605225-d684-1f65-4ad4-ee2ab39338b4";

    @Test
    void readsEveryValueTheProbesUseAndLeavesNaOut() throws Exception {
        GpuCapture c = NvidiaSmiQParser.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "Yes", "N/A", "Active")));

        assertThat(c.driverVersion()).isEqualTo("555.42.02");
        assertThat(c.provides()).containsExactlyInAnyOrder(GpuData.INVENTORY, GpuData.ECC, GpuData.MEMORY_REPAIR, GpuData.PCIE,
                GpuData.THERMAL, GpuData.POWER);
        CapturedGpu g0 = c.gpus().get(0);
        assertThat(g0.pciBusId()).isEqualTo("0000:68:00.0");
        assertThat(g0.name()).isEqualTo("NVIDIA A100-SXM4-80GB");
        assertThat(g0.uuid()).isEqualTo(UUID0);
        assertThat(g0.persistenceMode()).isTrue();
        assertThat(g0.eccEnabled()).isTrue();
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.CORRECTED, MemoryLocation.DRAM)).isEqualTo(353L);
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.CORRECTED, null)).isEqualTo(353L);
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.UNCORRECTED, MemoryLocation.SRAM)).isZero();
        assertThat(g0.eccErrors(EccCounter.AGGREGATE, EccError.CORRECTED, MemoryLocation.SRAM)).isNull();
        assertThat(g0.retiredPages(dev.nhc.checks.gpu.GpuDevice.RetirementCause.DOUBLE_BIT_ECC)).isNull();
        assertThat(g0.remappedRows().pending()).isFalse();
        assertThat(g0.pcieGeneration()).isEqualTo(4L);
        assertThat(g0.pcieMaxWidth()).isEqualTo(16L);
        assertThat(g0.temperature()).isEqualTo(25L);
        assertThat(g0.memoryTemperature()).isEqualTo(43L);
        assertThat(g0.temperatureThreshold(TemperatureThreshold.SLOWDOWN)).isEqualTo(89L);
        assertThat(g0.clocksEventReasons()).isEqualTo(0x1L);
        assertThat(g0.powerUsageMilliwatts()).isEqualTo(59770L);
        assertThat(g0.powerLimitMilliwatts).isEqualTo(500000L);
        CapturedGpu g1 = c.gpus().get(1);
        assertThat(g1.remappedRows().pending()).isTrue();
        assertThat(g1.powerUsageMilliwatts()).isNull();
        assertThat(g1.clocksEventReasons()).isEqualTo(0x1L | 0x8L | 0x80L);
    }

    @Test
    void aCaptureWithFewerGpusThanAttachedIsTruncated() {
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"))))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("the capture ends after 1 of the 2 GPUs 'Attached GPUs' announces (line 7)");
    }

    @Test
    void aLastGpuCutShortIsTruncated() {
        String second = gpu("00000000:9E:00.0", UUID1, "No", "59.77 W", "Not Active");
        String cut = second.substring(0, second.indexOf("    Temperature"));
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"), cut)))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("line 106: the block of GPU 00000000:9E:00.0 (line 64) ends without 'Processes', which the first GPU's block has");
    }

    @Test
    void aGarbledValueIsAnErrorAtItsLine() {
        String bad = gpu("00000000:68:00.0", UUID0, "Maybe", "lots", "Not Active");
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("smi.txt", query(1, bad)))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("line 49: expected Yes/No, Enabled/Disabled or Active/Not Active for 'Pending', found 'Maybe'")
                .hasMessageContaining("line 60: expected a number for 'Power Draw', found 'lots'");
    }

    @Test
    void brokenIndentationIsAnErrorAtItsLine() {
        String bad = gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active").replace("    Persistence Mode", "      Persistence Mode");
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("smi.txt", query(1, bad)))
                .isInstanceOf(CaptureParseException.class)
                .hasMessageContaining("line 10: expected indentation in steps of 4 spaces, found 6");
    }

    @Test
    void somethingElseEntirelyIsNotACapture() {
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("x.csv", "timestamp, index, name\n2024/08/29, 0, Tesla T4\n"))
                .isInstanceOf(CaptureParseException.class)
                .hasMessage("x.csv is not a readable nvidia-smi capture: line 1: expected '==============NVSMI LOG==============' (nvidia-smi -q) "
                        + "or 'GPU 0: <name> (UUID: ...)' (nvidia-smi nvlink --status), found 'timestamp, index, name'");
        assertThatThrownBy(() -> NvidiaSmiQParser.parse("empty.txt", "\n\n"))
                .hasMessage("empty.txt is not a readable nvidia-smi capture: the file is empty");
    }

    @Test
    void nvlinkStatusOfTheSameNodeMergesByUuidAndAnInactiveLinkFails() throws Exception {
        GpuCapture q = NvidiaSmiQParser.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "No", "59.77 W", "Not Active")));
        GpuCapture links = NvidiaSmiQParser.parse("nvlink.txt", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: " + UUID0 + ")\n"
                + "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n"
                + "GPU 1: NVIDIA A100-SXM4-80GB (UUID: " + UUID1 + ")\n"
                + "\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n");

        GpuCapture both = q.merge(links);

        assertThat(both.provides()).contains(GpuData.NVLINK, GpuData.INVENTORY);
        Outcome o = AllGpuProbes.run(new TestProbeContext(root).service(GpuSource.class, new CaptureGpuSource(both)));
        assertThat(o.skipped()).isEmpty();
        assertThat(o.at(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("gpu.nvlink");
            assertThat(f.message()).isEqualTo("GPU 1 (0000:9e:00.0): NVLink 1 down (DCGM: NVLINK_DOWN)");
        });

        assertThatThrownBy(() -> NvidiaSmiQParser.parse("nvlink.txt", "GPU 0: NVIDIA A100 (UUID: " + UUID0 + ")\n\t Link 0: fast\n"))
                .hasMessageContaining("line 2: expected a link speed such as '25 GB/s' or '<inactive>', found 'fast'");
    }

    @Test
    void aCaptureAsAFakeNvmlScenarioGetsTheSameVerdictThroughJna() throws Exception {
        GpuCapture c = NvidiaSmiQParser.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "Yes", "N/A", "Active")));

        Outcome replayed = AllGpuProbes.run(new TestProbeContext(root).params(Map.of("count", 2L))
                .service(GpuSource.class, new CaptureGpuSource(c)));
        FakeNvml.useRaw(FakeNvmlScenario.json(c));
        Outcome live = AllGpuProbes.run(new TestProbeContext(root).params(Map.of("count", 2L)).setting("nvml_library", FakeNvml.library()));

        assertThat(replayed.at(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo("GPU 1");
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
        });
        assertThat(live.findings()).extracting(Finding::check, Finding::entity, Finding::severity, Finding::message)
                .containsExactlyInAnyOrderElementsOf(replayed.findings().stream()
                        .map(f -> org.assertj.core.groups.Tuple.tuple(f.check(), f.entity(), f.severity(), f.message())).toList());
        assertThat(replayed.at(Severity.WARN)).extracting(Finding::check).containsExactly("gpu.power");
    }
}
