package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The forms of nvidia-smi other than -q: its summary table, --query-gpu CSV and nvlink -s, each written here in nvidia-smi's layout. */
class NvidiaSmiFormsTest {

    @TempDir
    Path root;

    private static final String TABLE = """
            Mon Mar  4 11:22:09 2024
            +---------------------------------------------------------------------------------------+
            | NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |
            |-----------------------------------------+----------------------+----------------------+
            | GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
            | Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
            |                                         |                      |               MIG M. |
            |=========================================+======================+======================|
            |   0  NVIDIA H100 80GB HBM3          On  | 00000000:18:00.0 Off |                    0 |
            | N/A   31C    P0              71W / 700W |      4MiB / 81559MiB |      0%      Default |
            |                                         |                      |             Disabled |
            +-----------------------------------------+----------------------+----------------------+
            |   1  NVIDIA H100 80GB HBM3          On  | 00000000:2A:00.0 Off |                    2 |
            | N/A   30C    P0              69W / 700W |      4MiB / 81559MiB |      0%      Default |
            |                                         |                      |             Disabled |
            +-----------------------------------------+----------------------+----------------------+
            """;

    private Verdict judge(String text, int count) throws Exception {
        return GpuChecks.onCapture(root, NvidiaSmiCapture.parse("t", text)).run(GpuChecks.everyCheck("{ count: " + count + " }", ""));
    }

    private static List<String> messages(Verdict v, Severity s) {
        return v.findings(s).stream().map(f -> f.check() + " " + f.entity() + ": " + f.message()).toList();
    }

    @Test
    void theSummaryTableFailsAGpuWithUncorrectableErrorsAndKnowsEveryGpu() throws Exception {
        GpuCapture c = NvidiaSmiCapture.parse("t", TABLE);
        assertThat(c.gpus()).hasSize(2);
        assertThat(c.driverVersion()).isEqualTo("535.161.08");
        assertThat(c.gaps()).isEmpty();
        Verdict v = judge(TABLE, 2);
        assertThat(messages(v, Severity.FAIL)).anyMatch(m -> m.startsWith("gpu.ecc GPU 1") && m.contains("2 uncorrectable ECC errors"));
        assertThat(messages(v, Severity.FAIL)).noneMatch(m -> m.startsWith("gpu.ecc GPU 0"));
    }

    @Test
    void aValueTheTableShowsAsErrIsUnknownNotAPass() throws Exception {
        String err = TABLE.replace("| N/A   31C    P0              71W / 700W |", "|ERR!  ERR!   P0             ERR! / 700W |");
        GpuCapture c = NvidiaSmiCapture.parse("t", err);
        assertThat(c.gaps()).isNotEmpty();
        assertThat(messages(judge(err, 2), Severity.UNKNOWN)).anyMatch(m -> m.contains("ERR!"));
    }

    @Test
    void queryGpuCsvIsReadByItsHeader() throws Exception {
        String csv = "index, pci.bus_id, name, temperature.gpu, ecc.errors.uncorrected.volatile.total\n"
                + "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 31, 0\n"
                + "1, 00000000:2A:00.0, NVIDIA H100 80GB HBM3, 30, 3\n";
        GpuCapture c = NvidiaSmiCapture.parse("t", csv);
        assertThat(c.gpus()).hasSize(2);
        assertThat(messages(judge(csv, 2), Severity.FAIL)).anyMatch(m -> m.startsWith("gpu.ecc GPU 1") && m.contains("3 uncorrectable ECC errors"));
        // [N/A] is "this GPU has no such value", as everywhere in nvidia-smi
        GpuCapture na = NvidiaSmiCapture.parse("t", csv.replace(", 3\n", ", [N/A]\n"));
        assertThat(na.gaps()).isEmpty();
    }

    @Test
    void nvlinkStatusFormsSayWhatTheGpuHas() throws Exception {
        String uuid = "GPU-5269b708-678a-b1a8-60f0-c90406537486";
        GpuCapture down = NvidiaSmiCapture.parse("t", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: " + uuid + ")\n\t Link 0: 26.562 GB/s\n"
                + "\t Link 1: <inactive>\n");
        assertThat(down.gpus()).hasSize(1);
        assertThat(down.gaps()).isEmpty();
        Verdict v = GpuChecks.onCapture(root, down).run(GpuChecks.check("gpu.nvlink", ""));
        assertThat(messages(v, Severity.FAIL)).anyMatch(m -> m.contains("NVLink 1 down"));

        // a GPU without NVLink says so, and an all-inactive GPU says that instead of listing its links
        GpuCapture none = NvidiaSmiCapture.parse("t", "GPU 0: NVIDIA A10 (UUID: " + uuid + ")\n\tDevice does not have or support Nvlink\n");
        assertThat(none.gaps()).isEmpty();
        GpuCapture inactive = NvidiaSmiCapture.parse("t", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: " + uuid + ")\n\tNVML: Unable to retrieve NVLink information as all links are inactive\n");
        assertThat(inactive.gaps()).isEmpty();
        assertThat(messages(GpuChecks.onCapture(root, inactive).run(GpuChecks.check("gpu.nvlink", "")), Severity.FAIL)).isNotEmpty();
        // in MIG mode nvidia-smi shows no link at all: that is not known, not a pass
        GpuCapture mig = NvidiaSmiCapture.parse("t", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: " + uuid + ")\n"
                + "Nvlink queries are not supported for Devices in MIG mode\n");
        assertThat(mig.gaps()).isNotEmpty();
    }
}
