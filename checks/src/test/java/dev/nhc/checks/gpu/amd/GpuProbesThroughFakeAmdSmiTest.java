package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.FakeAmdSmi;
import dev.nhc.checks.gpu.FakeGpus;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.GpuEccProbe;
import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
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

import static dev.nhc.rules.testing.Pipeline.about;
import static dev.nhc.rules.testing.Pipeline.findings;
import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Every GPU probe through the real JNA binding of AMD SMI against the project's fake
 * libamd_smi.so, with faults injected by scenario: verdicts as {@code nhc run} reaches them
 * ({@link Pipeline}), observations straight from the probe. The fake NVML is installed too, with no
 * GPUs, as on an AMD node that also has NVIDIA's library.
 */
class GpuProbesThroughFakeAmdSmiTest {

    @TempDir
    Path root;

    @AfterAll
    static void closeSessions() {
        AmdSmiSessions.closeAll();
        NvmlSessions.closeAll();
    }

    private Verdict run(String checks) throws Exception {
        return GpuChecks.onFakeGpus(root).run(checks);
    }

    private static Observation gpu(List<Observation> observations, int index) {
        return observations.stream().filter(o -> o.entity().gpuIndex().orElse(-1) == index).findFirst().orElseThrow();
    }

    private static List<Finding> bad(Verdict v, String check) {
        return findings(v, check).stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    /** The check's one finding that is not a pass. */
    private static Finding onlyBad(Verdict v, String check) {
        List<Finding> b = bad(v, check);
        assertThat(b).as(check).hasSize(1);
        return b.get(0);
    }

    @Test
    void eightHealthyMi300xsPassEveryCheckAndReportTheirValuesInTheSameFields() throws Exception {
        FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8)));

        Verdict v = run(GpuChecks.check("gpu.inventory", "{ count: 8, model: MI300X }") + GpuChecks.check("gpu.ecc", "")
                + GpuChecks.check("gpu.memory-repair", "") + GpuChecks.check("gpu.pcie", "") + GpuChecks.check("gpu.thermal", "")
                + GpuChecks.check("gpu.power", "") + GpuChecks.check("gpu.links", "{ expected_links: 7 }"));

        assertThat(v.findings()).isEmpty();
        assertThat(v.severity()).isEqualTo(Severity.PASS);
        List<Observation> inventory = result(v, "gpu.inventory").observations();
        assertThat(inventory.get(0).entity()).isEqualTo(GpuScan.GPUS);
        assertThat(inventory.get(0).fields()).containsEntry("gpu_count", 8L).containsEntry("gpu_vendors", "AMD")
                .containsEntry("driver_version", "6.8.5");
        assertThat(gpu(inventory, 1).entity()).isEqualTo(Entity.gpu(1, "0000:22:00.0"));
        assertThat(gpu(inventory, 1).fields()).containsEntry("vendor", "AMD").containsEntry("name", "AMD Instinct MI300X")
                .containsEntry("model_matches", true).containsEntry("firmware_version", "113-M3000100-102")
                .containsEntry("uuid", "3fff74a1-0000-1000-8001-000000000001")
                .doesNotContainKeys("persistence_mode", "lost", "responding", "gpu_error", "nvml_error", "unreadable_values");
        assertThat(gpu(result(v, "gpu.ecc").observations(), 0).fields()).containsEntry("ecc_enabled", true)
                .containsEntry("volatile_uncorrected", 0L).containsEntry("volatile_dram_uncorrected", 0L).containsEntry("volatile_deferred", 0L)
                .containsEntry("uncorrected_blocks", "none").doesNotContainKeys("aggregate_uncorrected", "volatile_sram_uncorrected");
        assertThat(gpu(result(v, "gpu.memory-repair").observations(), 0).fields()).containsEntry("bad_pages", 0L)
                .containsEntry("bad_pages_pending", 0L).doesNotContainKeys("remap_pending", "retired_pages");
        assertThat(gpu(result(v, "gpu.pcie").observations(), 0).fields()).containsEntry("pcie_gen", 5L).containsEntry("pcie_gen_max", 5L)
                .containsEntry("pcie_width", 16L).containsEntry("pcie_replays", 0L).containsEntry("pcie_recoveries", 0L)
                .containsEntry("gpu_utilization", 0L).doesNotContainKey("performance_state");
        assertThat(gpu(result(v, "gpu.thermal").observations(), 0).fields()).containsEntry("temperature", 41L)
                .containsEntry("memory_temperature", 35L).containsEntry("slowdown_temperature", 100L).containsEntry("shutdown_margin", 69L)
                .containsEntry("clocks_event_reason_names", "none").containsEntry("hw_slowdown", false).doesNotContainKey("clocks_event_reasons");
        assertThat(gpu(result(v, "gpu.power").observations(), 0).fields()).containsEntry("power", 131.0).containsEntry("power_limit", 750.0);
        assertThat(gpu(result(v, "gpu.links").observations(), 0).fields()).containsEntry("link_type", "XGMI").containsEntry("links", 7L)
                .containsEntry("links_active", 7L).containsEntry("link_error_status", "no errors").containsEntry("link_errors_detected", false);
    }

    @Test
    void anUncorrectableEccErrorFailsTheGpuNamingItsRasBlockAndWhatToDo() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        Map<String, Object> ecc = FakeAmdSmi.section(gpus.get(2), "ecc");
        ecc.put("UMC", FakeAmdSmi.counts(3, 2, 0));
        ecc.put("XGMI_WAFL", FakeAmdSmi.counts(0, 1, 0));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Verdict v = run(GpuChecks.check("gpu.ecc", ""));

        Finding f = onlyBad(v, "gpu.ecc");
        assertThat(f.severity()).isEqualTo(Severity.FAIL);
        assertThat(f.entity()).isEqualTo(Entity.gpu(2, "0000:38:00.0"));
        assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
        assertThat(f.message()).isEqualTo("GPU 2 (0000:38:00.0): 3 uncorrectable ECC errors since the driver loaded, in UMC 2, XGMI_WAFL 1; "
                + "reset the GPU (amd-smi reset -G) so that the driver retires the bad pages, and replace it if they come back");
        assertThat(gpu(result(v, "gpu.ecc").observations(), 2).fields()).containsEntry("volatile_uncorrected", 3L)
                .containsEntry("volatile_dram_uncorrected", 2L).containsEntry("volatile_corrected", 3L).containsEntry("corrected_blocks", "UMC 3");
    }

    @Test
    void deferredErrorsWarn() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(2);
        FakeAmdSmi.section(gpus.get(1), "ecc").put("GFX", FakeAmdSmi.counts(0, 0, 4));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Finding f = onlyBad(run(GpuChecks.check("gpu.ecc", "")), "gpu.ecc");

        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.message()).isEqualTo("GPU 1 (0000:22:00.0): 4 deferred ECC errors (poisoned memory) since the driver loaded, in GFX 4; "
                + "a job that reads that memory fails");
    }

    @Test
    void aPendingBadPageFailsUntilTheGpuIsResetAndAnUnreservableOneNeedsService() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        gpus.get(3).put("bad_pages", List.of("reserved", "reserved", "pending"));
        gpus.get(6).put("bad_pages", List.of("unreservable"));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Verdict v = run(GpuChecks.check("gpu.memory-repair", ""));

        assertThat(bad(v, "gpu.memory-repair")).extracting(f -> f.entity().label()).containsExactlyInAnyOrder("GPU 3", "GPU 6");
        Finding pending = about(v, "gpu.memory-repair", "GPU 3");
        assertThat(pending.severity()).isEqualTo(Severity.FAIL);
        assertThat(pending.remedy()).isEqualTo(Remedy.RESET_GPU);
        assertThat(pending.message()).isEqualTo("GPU 3 (0000:4e:00.0): 1 bad memory page is pending retirement and still in use; "
                + "reset the GPU (amd-smi reset -G) or reload amdgpu to retire it");
        Finding unreservable = about(v, "gpu.memory-repair", "GPU 6");
        assertThat(unreservable.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(unreservable.remedy()).isEqualTo(Remedy.HARDWARE);
        assertThat(gpu(result(v, "gpu.memory-repair").observations(), 3).fields()).containsEntry("bad_pages", 3L)
                .containsEntry("bad_pages_retired", 2L).containsEntry("bad_pages_pending", 1L);
    }

    @Test
    void anXgmiLinkDownFailsAndAnXgmiErrorStatusWarns() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        @SuppressWarnings("unchecked")
        List<String> links = new java.util.ArrayList<>((List<String>) gpus.get(5).get("xgmi_links"));
        links.set(3, "down");
        gpus.get(5).put("xgmi_links", links);
        gpus.get(1).put("xgmi_error_status", 2);
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Verdict v = run(GpuChecks.check("gpu.links", "{ expected_links: 7 }"));

        Finding down = about(v, "gpu.links", "GPU 5");
        assertThat(down.severity()).isEqualTo(Severity.FAIL);
        assertThat(down.remedy()).isEqualTo(Remedy.RESET_GPU);
        assertThat(down.message()).isEqualTo("GPU 5 (0000:7a:00.0): XGMI link 3 down"
                + "; reset the GPU (amd-smi reset -G, which resets its whole XGMI hive) and have the node serviced if the link stays down");
        Finding status = about(v, "gpu.links", "GPU 1");
        assertThat(status.severity()).isEqualTo(Severity.WARN);
        assertThat(status.message()).isEqualTo("GPU 1 (0000:22:00.0): XGMI reports multiple errors (amd-smi xgmi -s); "
                + "the status stays until 'amd-smi reset --xgmierr' clears it");
    }

    @Test
    void aHungCallFailsThatGpuByItsDeadlineNamingTheCallAndTheOthersAreStillJudged() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        gpus.get(4).put("delays_ms", Map.of("amdsmi_get_gpu_ecc_count", 60_000));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> run(GpuChecks.check("gpu.ecc", "")));

        Finding hung = onlyBad(v, "gpu.ecc");
        assertThat(hung.entity()).isEqualTo(Entity.gpu(4, "0000:64:00.0"));
        assertThat(hung.severity()).isEqualTo(Severity.FAIL);
        assertThat(hung.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(hung.message()).matches("GPU 4 \\(0000:64:00\\.0\\) not responding: amdsmi_get_gpu_ecc_count blocked > [0-9.]+s");
        assertThat(result(v, "gpu.ecc").observations()).hasSize(8);
    }

    /**
     * A GPU that fell off the bus while nhc's daemon holds its handle (one session, two runs): the
     * bus says it is gone, whatever the library still answers for it (amdgpu's files of a removed
     * device read as "not supported", the fake's "lost").
     */
    @Test
    void aGpuGoneFromThePciBusIsLostAndFailsTheNodeForService() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(8);
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));
        for (int i = 0; i < 8; i++) {
            pciDevice(FakeAmdSmi.pci(i), "0x1002", "0x120000");
        }
        var pipeline = GpuChecks.onFakeGpus(root);
        assertThat(bad(pipeline.run(GpuChecks.check("gpu.thermal", "")), "gpu.thermal")).isEmpty();

        Files.delete(root.resolve("sys/bus/pci/devices").resolve(FakeAmdSmi.pci(7)).resolve("vendor"));
        Files.delete(root.resolve("sys/bus/pci/devices").resolve(FakeAmdSmi.pci(7)).resolve("class"));
        Files.delete(root.resolve("sys/bus/pci/devices").resolve(FakeAmdSmi.pci(7)));
        Verdict v = pipeline.run(GpuChecks.check("gpu.thermal", ""));

        Finding lost = onlyBad(v, "gpu.thermal");
        assertThat(lost.entity()).isEqualTo(Entity.gpu(7, "0000:a6:00.0"));
        assertThat(lost.severity()).isEqualTo(Severity.FAIL);
        assertThat(lost.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(lost.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(lost.message()).isEqualTo("GPU 7 (0000:a6:00.0) is lost: its PCI device is gone from /sys/bus/pci/devices "
                + "(fallen off the bus); see dmesg for amdgpu errors");
    }

    /** A fresh run (a one-shot nhc) no longer enumerates a GPU that fell off the bus: the count says so, in amdgpu's words. */
    @Test
    void aGpuMissingFromTheCountFailsTheInventory() throws Exception {
        FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(7)));

        Finding f = onlyBad(run(GpuChecks.check("gpu.inventory", "{ count: 8 }")), "gpu.inventory");

        assertThat(f.severity()).isEqualTo(Severity.FAIL);
        assertThat(f.remedy()).isEqualTo(Remedy.REBOOT);
        assertThat(f.message()).isEqualTo("only 7 of the 8 GPUs found (a GPU fell off the bus or was not enumerated; see dmesg for amdgpu errors)");
    }

    @Test
    void aDeviceAmdSmiNoLongerFindsIsLost() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(2);
        gpus.get(1).put("returns", Map.of("amdsmi_get_temp_metric", AmdSmiStatus.NOT_FOUND));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Finding f = onlyBad(run(GpuChecks.check("gpu.thermal", "")), "gpu.thermal");

        assertThat(f.slurmState()).isEqualTo(SlurmState.FAIL);
        assertThat(f.message()).isEqualTo("GPU 1 (0000:22:00.0) is lost: amdsmi_get_temp_metric returned AMDSMI_STATUS_NOT_FOUND "
                + "(Device Not found) (AMD SMI no longer finds the device); see dmesg for amdgpu errors");
    }

    @Test
    void aRefusedValueIsUnknownNotAPass() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(2);
        gpus.get(0).put("returns", Map.of("amdsmi_get_gpu_bad_page_info", AmdSmiStatus.NO_PERM));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Finding f = onlyBad(run(GpuChecks.check("gpu.memory-repair", "")), "gpu.memory-repair");

        assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
        assertThat(f.message()).isEqualTo("GPU 0 (0000:0c:00.0): amdsmi_get_gpu_bad_page_info returned AMDSMI_STATUS_NO_PERM (Permission Denied)");
    }

    @Test
    void hotHbmAndProchotWarnInAmdsWords() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(2);
        FakeAmdSmi.section(gpus.get(1), "violations").putAll(Map.of("prochot", 1, "hbm_thermal", 1, "ppt", 1));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        Verdict v = run(GpuChecks.check("gpu.thermal", ""));

        Finding f = onlyBad(v, "gpu.thermal");
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.message()).isEqualTo("GPU 1 (0000:22:00.0): clocks cut by PROCHOT, HBM thermal; check the cooling and the power supply");
        assertThat(gpu(result(v, "gpu.thermal").observations(), 1).fields()).containsEntry("hw_slowdown", true)
                .containsEntry("hw_thermal_slowdown", true).containsEntry("clocks_event_reason_names", "PROCHOT, HBM thermal, PPT (power)");
    }

    @Test
    void aHungInitFailsEveryGpuCheckNamingTheCall() throws Exception {
        var scenario = FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(2));
        scenario.put("delays_ms", Map.of("amdsmi_get_processor_handles", 30_000));
        FakeAmdSmi.use(scenario);

        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(15), () -> run(GpuChecks.check("gpu.ecc", "")));

        assertThat(onlyBad(v, "gpu.ecc")).satisfies(f -> {
            assertThat(f.entity()).isEqualTo(GpuScan.GPUS);
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).startsWith("AMD SMI (" + FakeAmdSmi.library() + ") is not responding: amdsmi_get_processor_handles blocked >");
        });
    }

    @Test
    void aMalformedScenarioIsAnInitErrorNeverAPass() throws Exception {
        FakeAmdSmi.useRaw("{\"gpus\": [ {\"market_name\": 7 } ]}");

        Finding f = onlyBad(run(GpuChecks.check("gpu.inventory", "{ count: 8 }")), "gpu.inventory");

        assertThat(f.severity()).isEqualTo(Severity.FAIL);
        assertThat(f.message()).isEqualTo("AMD SMI failed to initialise (amdsmi_init returned AMDSMI_STATUS_INIT_ERROR "
                + "(An error occurred during initialization))");
    }

    @Test
    void correctedErrorsRisingBetweenRunsAreARate() throws Exception {
        var gpus = FakeAmdSmi.healthyMi300xs(1);
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));
        var ctx = FakeGpus.context(root);
        new GpuEccProbe().probe(ctx.clock(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
        FakeAmdSmi.section(gpus.get(0), "ecc").put("UMC", FakeAmdSmi.counts(500, 0, 0));
        FakeAmdSmi.use(FakeAmdSmi.scenario(gpus));

        ProbeResult second = new GpuEccProbe().probe(ctx.clock(Clock.fixed(Instant.parse("2026-01-01T01:00:00Z"), ZoneOffset.UTC)));

        assertThat(second.observations().get(0).fields()).containsEntry("corrected_per_hour", 500.0).containsEntry("corrected_blocks", "UMC 500");
    }

    private void pciDevice(String bdf, String vendor, String pciClass) throws Exception {
        Path d = root.resolve("sys/bus/pci/devices").resolve(bdf);
        Files.createDirectories(d);
        Files.writeString(d.resolve("vendor"), vendor + "\n");
        Files.writeString(d.resolve("class"), pciClass + "\n");
    }
}
