package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

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
        return SmiQText.gpu(bus, uuid).remapPending(remapPending).powerDraw(powerDraw)
                .clockEvents("Active", hwSlowdown, "Not Active", hwSlowdown).text();
    }

    static String query(int attached, String... blocks) {
        return SmiQText.query(attached, blocks);
    }

    static final String UUID0 = "GPU-5269b708-678a-b1a8-60f0-c90406537486";
    static final String UUID1 = "GPU-a7605225-d684-1f65-4ad4-ee2ab39338b4";

    @Test
    void readsEveryValueTheProbesUseAndLeavesNaOut() throws Exception {
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
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
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.CORRECTED, EccBlock.DRAM)).isEqualTo(353L);
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.CORRECTED, null)).isEqualTo(353L);
        assertThat(g0.eccErrors(EccCounter.VOLATILE, EccError.UNCORRECTED, EccBlock.SRAM)).isZero();
        assertThat(g0.eccErrors(EccCounter.AGGREGATE, EccError.CORRECTED, EccBlock.SRAM)).isNull();
        assertThat(g0.retiredPages(dev.nhc.checks.gpu.GpuDevice.RetirementCause.DOUBLE_BIT_ECC)).isNull();
        assertThat(g0.remappedRows().pending()).isFalse();
        assertThat(g0.pcieGeneration()).isEqualTo(4L);
        assertThat(g0.pcieMaxWidth()).isEqualTo(16L);
        assertThat(g0.temperature()).isEqualTo(25L);
        assertThat(g0.memoryTemperature()).isEqualTo(43L);
        assertThat(g0.temperatureThreshold(TemperatureThreshold.SLOWDOWN)).isEqualTo(89L);
        assertThat(g0.throttle().vendorBits()).isEqualTo(0x1L);
        assertThat(g0.powerUsageMilliwatts()).isEqualTo(59770L);
        assertThat(g0.powerLimitMilliwatts).isEqualTo(500000L);
        CapturedGpu g1 = c.gpus().get(1);
        assertThat(g1.remappedRows().pending()).isTrue();
        assertThat(g1.powerUsageMilliwatts()).isNull();
        assertThat(g1.throttle().vendorBits()).isEqualTo(0x1L | 0x8L | 0x80L);
    }

    /** Each gap as "KINDS on GPU: text" (GPUS for the GPUs as a whole), for assertions. */
    static List<String> gaps(GpuCapture c) {
        return c.gaps().stream().map(g -> (g.kinds().equals(GpuCapture.ALL) ? "ALL" : g.kinds().toString()) + " on "
                + (g.index() == null ? "GPUS" : "GPU " + g.index()) + ": " + g.text()).toList();
    }

    @Test
    void aCaptureWithFewerGpusThanAttachedIsJudgedOnTheGpusItShowsAndSaysTheRestIsMissing() {
        String whole = gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active");
        // 'nvidia-smi -q -i 0': every GPU announced, one shown whole (its last section, Processes, is there): a choice, not a cut
        GpuCapture chosen = NvidiaSmiCapture.parse("smi.txt", query(2, whole));
        assertThat(chosen.gpus()).hasSize(1);
        assertThat(chosen.announced()).isEqualTo(2);
        assertThat(gaps(chosen)).isEmpty();
        // the same GPU cut before Processes: the capture ends early, and the GPUs it does not show are not known
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", query(2, whole.substring(0, whole.indexOf("    Processes"))));
        assertThat(c.gpus()).hasSize(1);
        assertThat(gaps(c)).containsExactly("ALL on GPUS: the capture ends after 1 of the 2 GPUs 'Attached GPUs' announces (line 7, last line 61):"
                + " GPU 1 is not in it");
    }

    @Test
    void aLastGpuCutShortLeavesWhatItLacksUnread() {
        String second = gpu("00000000:9E:00.0", UUID1, "No", "59.77 W", "Not Active");
        String cut = second.substring(0, second.indexOf("    Temperature"));
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"), cut));
        assertThat(c.gpus()).hasSize(2);
        assertThat(gaps(c)).containsExactly("[MEMORY_REPAIR, THERMAL, POWER] on GPU 1: GPU 1 (0000:9e:00.0): its block (line 64) ends at line 106 without"
                + " 'Processes', which the first GPU's block has: the capture is cut off there");
        assertThat(c.gpus().get(1).holds(GpuData.ECC)).isTrue();
    }

    @Test
    void aGarbledValueLeavesItsKindOfDataUnreadOnItsGpu() {
        String bad = gpu("00000000:68:00.0", UUID0, "Maybe", "lots", "Not Active");
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", query(1, bad));
        assertThat(gaps(c)).containsExactly(
                "[MEMORY_REPAIR] on GPU 0: GPU 0 (0000:68:00.0): line 49: expected Yes/No, Enabled/Disabled or Active/Not Active for 'Pending',"
                        + " found 'Maybe'",
                "[POWER] on GPU 0: GPU 0 (0000:68:00.0): line 60: expected a number for 'Power Draw', found 'lots'");
        assertThat(c.gpus().get(0).remappedRows()).isNull();
        assertThat(c.gpus().get(0).temperature()).isEqualTo(25L);
    }

    @Test
    void brokenIndentationLeavesItsGpuUnread() {
        String bad = gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active").replace("    Persistence Mode", "      Persistence Mode");
        assertThat(gaps(NvidiaSmiCapture.parse("smi.txt", query(1, bad))))
                .containsExactly("ALL on GPU 0: GPU 0 (0000:68:00.0): line 10: expected indentation in steps of 4 spaces, found 6");
    }

    @Test
    void somethingElseEntirelyIsReadAsNothing() {
        GpuCapture other = NvidiaSmiCapture.parse("x.txt", "Thu Nov 14 10:45:47 2024\nall good here\n");
        assertThat(other.gpus()).isEmpty();
        assertThat(gaps(other)).containsExactly("ALL on GPUS: line 1 of x.txt: expected nvidia-smi output ('==============NVSMI LOG=============='"
                + " or a GPU block of nvidia-smi -q, nvidia-smi's table, a --query-gpu CSV header, 'GPU 0: <name> (UUID: ...)' of nvlink --status,"
                + " or one of its error lines), found 'Thu Nov 14 10:45:47 2024'");
        assertThat(gaps(NvidiaSmiCapture.parse("empty.txt", "\n\n"))).containsExactly("ALL on GPUS: empty.txt is empty");
    }

    @Test
    void readsThePerformanceStateAndUtilisationAndSaysWhenAStateIsGarbled() throws Exception {
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", SmiQText.query(SmiQText.gpu("00000000:68:00.0", UUID0).busy("P8", "3 %"),
                SmiQText.gpu("00000000:9E:00.0", UUID1).busy("N/A", "N/A")));

        assertThat(c.gpus().get(0).performanceState()).isEqualTo(8L);
        assertThat(c.gpus().get(0).gpuUtilization()).isEqualTo(3L);
        assertThat(c.gpus().get(1).performanceState()).isNull();
        assertThat(c.gpus().get(1).gpuUtilization()).isNull();

        assertThat(gaps(NvidiaSmiCapture.parse("smi.txt", SmiQText.query(SmiQText.gpu("00000000:68:00.0", UUID0).busy("Turbo", "0 %")))))
                .containsExactly("[PCIE] on GPU 0: GPU 0 (0000:68:00.0): line 23: expected a performance state P0 to P15 for 'Performance State',"
                        + " found 'Turbo'");
    }

    @Test
    void eachGpuHoldsTheKindsOfDataItsBlockShows() throws Exception {
        String q = query(2, "GPU 00000000:68:00.0\n    Retired Pages\n        Single Bit ECC                    : 0\n"
                        + "        Double Bit ECC                    : 0\n        Pending Page Blacklist            : No\n",
                "GPU 00000000:9E:00.0\n    Retired Pages\n        Single Bit ECC                    : 2\n"
                        + "        Double Bit ECC                    : 0\n        Pending Page Blacklist            : No\n");

        GpuCapture c = NvidiaSmiCapture.parse("retired.txt", q);

        assertThat(c.provides()).containsExactly(GpuData.MEMORY_REPAIR);
        assertThat(c.gpus()).allSatisfy(g -> {
            assertThat(g.holds(GpuData.MEMORY_REPAIR)).isTrue();
            assertThat(g.holds(GpuData.POWER)).isFalse();
        });
    }

    @Test
    void anNvlinkStatusOfOneGpuHoldsThatGpuAloneByItsOwnIndex() throws Exception {
        GpuCapture seven = NvidiaSmiCapture.parse("nvlink-7.txt", "GPU 7: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000007)\n"
                + "\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n");

        assertThat(seven.gpus()).singleElement().satisfies(g -> {
            assertThat(g.index()).isEqualTo(7);
            assertThat(g.holds(GpuData.NVLINK)).isTrue();
            assertThat(g.linkActive(0)).isTrue();
            assertThat(g.linkActive(1)).isFalse();
            assertThat(g.linkActive(2)).isNull();
        });

        // merged with an nvidia-smi -q of GPUs 0 and 1, GPU 7 stays the only one with NVLink data, and it gains no inventory
        GpuCapture q = NvidiaSmiCapture.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "No", "59.77 W", "Not Active")));
        GpuCapture both = q.merge(seven);
        assertThat(both.gpus()).extracting(CapturedGpu::index).containsExactly(0, 1, 7);
        assertThat(both.gpus().get(0).holds(GpuData.NVLINK)).isFalse();
        assertThat(both.gpus().get(2).holds(GpuData.INVENTORY)).isFalse();

        // NVML numbers GPUs by position: as a fake-NVML scenario, GPUs 0-6 are there with no values at all
        List<?> scenarioGpus = (List<?>) FakeNvmlScenario.from(seven).get("gpus");
        assertThat(scenarioGpus).hasSize(8);
        assertThat(scenarioGpus.subList(0, 7)).allSatisfy(g -> assertThat((Map<?, ?>) g).isEmpty());
        assertThat(((Map<?, ?>) scenarioGpus.get(7)).keySet()).extracting(Object::toString).contains("nvlinks");
    }

    @Test
    void nvlinkStatusOfTheSameNodeMergesByUuidAndAnInactiveLinkFails() throws Exception {
        GpuCapture q = NvidiaSmiCapture.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "No", "59.77 W", "Not Active")));
        GpuCapture links = NvidiaSmiCapture.parse("nvlink.txt", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: " + UUID0 + ")\n"
                + "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n"
                + "GPU 1: NVIDIA A100-SXM4-80GB (UUID: " + UUID1 + ")\n"
                + "\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n");

        GpuCapture both = q.merge(links);

        assertThat(both.provides()).contains(GpuData.NVLINK, GpuData.INVENTORY);
        Verdict v = GpuChecks.onCapture(root, both).run(GpuChecks.everyCheck("", ""));
        assertThat(GpuChecks.skipped(v)).isEmpty();
        assertThat(v.findings(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("gpu.nvlink");
            assertThat(f.message()).isEqualTo("GPU 1 (0000:9e:00.0): NVLink 1 down (DCGM: NVLINK_DOWN)");
        });

        assertThat(gaps(NvidiaSmiCapture.parse("nvlink.txt", "GPU 0: NVIDIA A100 (UUID: " + UUID0 + ")\n\t Link 0: fast\n")))
                .containsExactly("[NVLINK] on GPU 0: GPU 0: line 2: expected a link speed such as '25 GB/s' or '<inactive>', found 'fast'");
    }

    @Test
    void aCaptureAsAFakeNvmlScenarioGetsTheSameVerdictThroughJna() throws Exception {
        GpuCapture c = NvidiaSmiCapture.parse("smi.txt", query(2, gpu("00000000:68:00.0", UUID0, "No", "59.77 W", "Not Active"),
                gpu("00000000:9E:00.0", UUID1, "Yes", "N/A", "Active")));
        String checks = GpuChecks.everyCheck("{ count: 2 }", "");

        Verdict replayed = GpuChecks.onCapture(root.resolve("replay"), c).run(checks);
        FakeNvml.useRaw(FakeNvmlScenario.json(c));
        Verdict live = GpuChecks.onFakeNvml(root.resolve("live")).run(checks);

        assertThat(replayed.findings(Severity.FAIL)).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo("GPU 1");
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
        });
        // GPU 1's power cannot be read, and its clocks are cut by the power brake
        assertThat(replayed.findings(Severity.WARN)).extracting(Finding::check).containsExactlyInAnyOrder("gpu.power", "gpu.thermal");
        // the replay skips gpu.nvlink (no nvlink --status); live NVML answers NOT_SUPPORTED and it passes
        assertThat(GpuChecks.skipped(replayed)).containsExactly("gpu.nvlink");
        assertThat(live.findings()).extracting(Finding::check, Finding::entity, Finding::severity, Finding::message)
                .containsExactlyInAnyOrderElementsOf(replayed.findings().stream()
                        .map(f -> org.assertj.core.groups.Tuple.tuple(f.check(), f.entity(), f.severity(), f.message())).toList());
    }
}
