package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.amd.AmdSmiSessions;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.nhc.rules.testing.Pipeline.findings;
import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's promise: one config, written once, judges an 8× H100 node and an 8× MI300X node, each
 * through its own vendor's library (both fakes installed, as on a site image that ships both), and
 * a fault on either names the GPU by index and PCI address and says what to do. A host with
 * neither vendor's GPUs skips the checks, except the count that expects GPUs.
 */
class SameConfigOnBothVendorsTest {
    static final String CONFIG = """
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
    static void closeSessions() {
        NvmlSessions.closeAll();
        AmdSmiSessions.closeAll();
    }

    private Verdict run() throws Exception {
        return GpuChecks.onFakeGpus(root).run(CONFIG);
    }

    private static Finding onlyBad(Verdict v, String check) {
        List<Finding> bad = findings(v, check).stream().filter(f -> f.severity() != Severity.PASS).toList();
        assertThat(bad).as(check + " in " + v.findings()).hasSize(1);
        return bad.get(0);
    }

    @Test
    void theSameConfigPassesEightHealthyH100sAndEightHealthyMi300xs() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(8)));
        Verdict nvidia = run();
        FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8)));
        Verdict amd = run();

        for (Verdict v : List.of(nvidia, amd)) {
            assertThat(v.severity()).as(v.findings().toString()).isEqualTo(Severity.PASS);
            assertThat(v.checks()).extracting(c -> c.status()).containsOnly(CheckStatus.COMPLETED);
        }
        assertThat(result(nvidia, "gpus").observations().get(0).fields()).containsEntry("gpu_count", 8L).containsEntry("gpu_vendors", "NVIDIA");
        assertThat(result(amd, "gpus").observations().get(0).fields()).containsEntry("gpu_count", 8L).containsEntry("gpu_vendors", "AMD");
        assertThat(result(nvidia, "gpu-links").observations().get(0).fields()).containsEntry("link_type", "NVLink").containsEntry("links_active", 18L);
        assertThat(result(amd, "gpu-links").observations().get(0).fields()).containsEntry("link_type", "XGMI").containsEntry("links_active", 7L);
    }

    @Test
    void eachFaultOfEitherVendorFailsNamingTheGpuAndWhatToDo() throws Exception {
        var h100 = FakeNvml.healthyH100s(8);
        FakeNvml.section(h100.get(2), "ecc").put("volatile_uncorrected", 1);
        FakeNvml.use(FakeNvml.scenario(h100));
        Finding nvidia = onlyBad(run(), "gpu-ecc");

        var mi300x = FakeAmdSmi.healthyMi300xs(8);
        FakeAmdSmi.section(mi300x.get(2), "ecc").put("UMC", FakeAmdSmi.counts(0, 1, 0));
        mi300x.get(4).put("bad_pages", List.of("pending"));
        @SuppressWarnings("unchecked")
        List<String> links = new java.util.ArrayList<>((List<String>) mi300x.get(5).get("xgmi_links"));
        links.set(0, "down");
        mi300x.get(5).put("xgmi_links", links);
        FakeAmdSmi.use(FakeAmdSmi.scenario(mi300x));
        Verdict amd = run();

        assertThat(nvidia.message()).isEqualTo("GPU 2 (0000:39:00.0): 1 uncorrectable ECC error since the driver loaded (DCGM: VOLATILE_DBE_DETECTED)");
        assertThat(nvidia.remedy()).isEqualTo(Remedy.RESET_GPU);
        assertThat(onlyBad(amd, "gpu-ecc")).satisfies(f -> {
            assertThat(f.message()).startsWith("GPU 2 (0000:38:00.0): 1 uncorrectable ECC error since the driver loaded, in UMC 1; reset the GPU");
            assertThat(f.remedy()).isEqualTo(Remedy.RESET_GPU);
        });
        assertThat(onlyBad(amd, "gpu-memory").message()).isEqualTo("GPU 4 (0000:64:00.0): 1 bad memory page is pending retirement and still in use; "
                + "reset the GPU (amd-smi reset -G) or reload amdgpu to retire it");
        assertThat(onlyBad(amd, "gpu-links").message()).isEqualTo("GPU 5 (0000:7a:00.0): XGMI link 0 down"
                + "; reset the GPU (amd-smi reset -G, which resets its whole XGMI hive) and have the node serviced if the link stays down");
        assertThat(amd.severity()).isEqualTo(Severity.FAIL);
    }

    @Test
    void aHostWithNeitherVendorsGpusSkipsTheChecksButFailsTheCountThatExpectsThem() throws Exception {
        FakeAmdSmi.use(FakeAmdSmi.scenario(List.of()));    // and no NVIDIA GPUs either

        Verdict v = run();

        Finding count = onlyBad(v, "gpus");
        assertThat(count.severity()).isEqualTo(Severity.FAIL);
        assertThat(count.message()).isEqualTo("none of the 8 GPUs found: no NVIDIA or AMD GPUs here (NVML (" + FakeNvml.library()
                + ") reports no GPUs; AMD SMI (" + FakeAmdSmi.library() + ") reports no GPUs)");
        for (String check : List.of("gpu-ecc", "gpu-memory", "gpu-thermal", "gpu-pcie", "gpu-links", "gpu-power")) {
            assertThat(result(v, check).status()).as(check).isEqualTo(CheckStatus.SKIPPED);
            assertThat(result(v, check).note()).as(check).startsWith("no NVIDIA or AMD GPUs here");
        }
        Verdict uncounted = GpuChecks.onFakeGpus(root).run("- { name: gpus, use: gpu.inventory }");
        assertThat(result(uncounted, "gpus").status()).isEqualTo(CheckStatus.SKIPPED);
    }

    /** A site image with both libraries, on a node with one vendor's GPUs: the other's driver is not loaded, and the bus shows none of its GPUs. */
    @Test
    void bothLibrariesInstalledAndOneVendorsDriverNotLoadedIsThatVendorAbsentNotAFault() throws Exception {
        var nvml = FakeNvml.scenario(FakeNvml.healthyH100s(8));
        var amd = FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8));
        amd.put("returns", Map.of("amdsmi_init", 34));
        FakeGpus.use(nvml, amd);
        for (int i = 0; i < 8; i++) {
            pciDevice(String.format("0000:%02x:00.0", 0x19 + 0x10 * i), "0x10de", "0x030200");
        }
        Verdict onNvidia = run();

        nvml.put("returns", Map.of("nvmlInit_v2", 9));
        amd.remove("returns");
        FakeGpus.use(nvml, amd);
        clearPciBus();
        for (int i = 0; i < 8; i++) {
            pciDevice(FakeAmdSmi.pci(i), "0x1002", "0x120000");
        }
        Verdict onAmd = run();

        for (Verdict v : List.of(onNvidia, onAmd)) {
            assertThat(v.severity()).as(v.findings().toString()).isEqualTo(Severity.PASS);
            assertThat(v.checks()).extracting(c -> c.status()).containsOnly(CheckStatus.COMPLETED);
        }
        assertThat(result(onNvidia, "gpus").observations().get(0).fields()).containsEntry("gpu_vendors", "NVIDIA");
        assertThat(result(onAmd, "gpus").observations().get(0).fields()).containsEntry("gpu_vendors", "AMD");
    }

    /** The same "driver not loaded" where the bus shows that vendor's GPUs is the node's fault, not an absence. */
    @Test
    void aDriverNotLoadedWhereTheBusShowsItsGpusIsAFault() throws Exception {
        var amd = FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8));
        amd.put("returns", Map.of("amdsmi_init", 34));
        FakeAmdSmi.use(amd);
        pciDevice(FakeAmdSmi.pci(0), "0x1002", "0x120000");

        Verdict v = run();

        Finding count = onlyBad(v, "gpus");
        assertThat(count.severity()).isEqualTo(Severity.FAIL);
        assertThat(count.message()).startsWith("the amdgpu driver is not loaded (amdsmi_init returned AMDSMI_STATUS_DRIVER_NOT_LOADED");
        assertThat(onlyBad(v, "gpu-ecc").severity()).isEqualTo(Severity.UNKNOWN);
    }

    @Test
    void aNodeWithBothVendorsGpusJudgesEachThroughItsOwnLibrary() throws Exception {
        var h100 = FakeNvml.healthyH100s(2);
        var mi300x = FakeAmdSmi.healthyMi300xs(2);
        FakeAmdSmi.section(mi300x.get(1), "ecc").put("UMC", FakeAmdSmi.counts(0, 1, 0));
        FakeGpus.use(FakeNvml.scenario(h100), FakeAmdSmi.scenario(mi300x));

        Verdict v = GpuChecks.onFakeGpus(root).run("- { name: gpus, use: gpu.inventory, with: { count: 4 } }\n- { name: gpu-ecc, use: gpu.ecc }");

        assertThat(result(v, "gpus").observations().get(0).fields()).containsEntry("gpu_count", 4L).containsEntry("gpu_vendors", "NVIDIA, AMD")
                .containsEntry("driver_version", "NVIDIA 535.161.08, AMD 6.8.5");
        assertThat(findings(v, "gpu-ecc")).hasSize(4);
        assertThat(onlyBad(v, "gpu-ecc").message()).startsWith("GPU 1 (0000:22:00.0): 1 uncorrectable ECC error since the driver loaded, in UMC 1");
        assertThat(onlyBad(v, "gpu-ecc").slurmState()).isNotEqualTo(SlurmState.FAIL);
    }

    private void pciDevice(String bdf, String vendor, String pciClass) throws Exception {
        Path d = root.resolve("sys/bus/pci/devices").resolve(bdf);
        Files.createDirectories(d);
        Files.writeString(d.resolve("vendor"), vendor + "\n");
        Files.writeString(d.resolve("class"), pciClass + "\n");
    }

    private void clearPciBus() throws Exception {
        try (var s = Files.walk(root.resolve("sys"))) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
