package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc replay --amd-smi}: real public captures (checks/src/test/resources/captures/amd, see SOURCES) and captures of faults. */
class ReplayAmdIT {
    private static final Path CAPTURES = Path.of("../checks/src/test/resources/captures/amd");

    @TempDir
    Path dir;

    private Path config(int count) throws Exception {
        Path c = dir.resolve("nhc.yaml");
        Files.writeString(c, "nhc: 1\nchecks:\n"
                + "  - { name: gpus, use: gpu.inventory, with: { count: " + count + " } }\n"
                + "  - { name: gpu-ecc, use: gpu.ecc }\n  - { name: gpu-memory, use: gpu.memory-repair }\n"
                + "  - { name: gpu-thermal, use: gpu.thermal }\n  - { name: gpu-pcie, use: gpu.pcie }\n"
                + "  - { name: gpu-links, use: gpu.links }\n  - { name: gpu-power, use: gpu.power }\n");
        return c;
    }

    @Test
    void aRealRocmSmiCaptureIsJudgedAndWhatItDoesNotShowIsSkipped() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config(4).toString(),
                "--amd-smi", CAPTURES.resolve("rocm-smi-mi100-rocm602.json").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("rocm-smi-mi100-rocm602.json (4 AMD GPUs, driver 6.3.6)"), r.out());
        assertTrue(r.out().contains("(4 checks run, 3 skipped"), r.out());

        // the same capture without its option: its content says it is rocm-smi's
        NhcProcess.Result told = NhcProcess.run(dir, Map.of(), "replay", "-c", config(4).toString(),
                CAPTURES.resolve("rocm-smi-mi100-rocm602.json").toString());
        assertEquals(0, told.exit(), told.out() + told.err());
        assertTrue(told.out().contains("rocm-smi-mi100-rocm602.json (4 AMD GPUs, driver 6.3.6)"), told.out());
    }

    @Test
    void aPendingBadPageInATicketsCapturesFailsNamingTheGpu() throws Exception {
        Path list = dir.resolve("list.json");
        StringBuilder gpus = new StringBuilder("[");
        for (int i = 0; i < 8; i++) {
            gpus.append(i == 0 ? "" : ",").append(String.format("{\"gpu\": %d, \"bdf\": \"0000:%02x:00.0\", \"uuid\": \"%02dff74a1-0000-1000-80%02x-000000000000\"}",
                    i, 0x0c + 0x16 * i, i, i));
        }
        Files.writeString(list, gpus.append("]\n").toString());
        Path badPages = dir.resolve("bad-pages.txt");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            text.append("GPU: ").append(i).append('\n').append("    RETIRED: No bad pages found.\n");
            text.append(i == 3 ? "    PENDING:\n        PAGE_ADDRESS: 0x5c7e00\n        PAGE_SIZE: 4096\n        STATUS: PENDING\n"
                    : "    PENDING: No bad pages found.\n");
            text.append("    UN_RES: No bad pages found.\n \n");
        }
        Files.writeString(badPages, text.toString());

        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config(8).toString(), "--amd-smi", list.toString(),
                "--amd-smi", badPages.toString());

        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("gpu-memory: GPU 3 (0000:4e:00.0): 1 bad memory page is pending retirement and still in use; "
                + "reset the GPU (amd-smi reset -G) or reload amdgpu to retire it"), r.out());
        assertTrue(r.out().contains("list.json + " + badPages + " (8 AMD GPUs)"), r.out());
    }

    @Test
    void oneNodesGpusAreOneVendorsAndAnUnreadableCaptureIsNeverAPass() throws Exception {
        Path smi = dir.resolve("q.txt");
        Files.writeString(smi, "\n==============NVSMI LOG==============\n\nAttached GPUs : 0\n");
        NhcProcess.Result both = NhcProcess.run(dir, Map.of(), "replay", "-c", config(8).toString(), "--nvidia-smi-q", smi.toString(),
                "--amd-smi", CAPTURES.resolve("amd-smi-bad-pages-mi300x.txt").toString());
        assertEquals(2, both.exit(), both.out() + both.err());
        assertTrue(both.err().contains("give its nvidia-smi captures or its amd-smi captures, not both"), both.err());

        Path metric = dir.resolve("metric.json");
        Files.writeString(metric, "[{\"gpu\": 0, \"ecc\": {\"total_uncorrectable_count\": \"lots\"}}]\n");
        NhcProcess.Result garbled = NhcProcess.run(dir, Map.of(), "replay", "-c", config(8).toString(), "--amd-smi", metric.toString());
        assertEquals(2, garbled.exit(), garbled.out() + garbled.err());
        assertEquals("", garbled.out());
        assertTrue(garbled.err().contains(metric + " is not a readable amd-smi capture: GPU 0: ecc.total_uncorrectable_count is lots, "
                + "expected a number or N/A; nothing was judged"), garbled.err());
    }
}
