package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code nhc run} with GPU checks against the project's fake libnvidia-ml, and {@code nhc replay}
 * of nvidia-smi captures, as processes.
 */
class GpuCommandsIT {
    @TempDir
    Path dir;

    private static final String GPU_CHECKS = """
              - { name: gpus, use: gpu.inventory, with: { count: 2, model: H100 } }
              - { name: gpu-ecc, use: gpu.ecc }
              - { name: gpu-memory-repair, use: gpu.memory-repair }
              - { name: gpu-pcie, use: gpu.pcie }
              - { name: gpu-nvlink, use: gpu.nvlink }
              - { name: gpu-thermal, use: gpu.thermal }
              - { name: gpu-power, use: gpu.power }
              - { name: root-fs, use: disk.usage, with: { mount: / }, fail: { used_percent: "> 101" } }
            """;

    private Path config(String extraSettings) throws Exception {
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + ", deadline: 8s, check_timeout: 6s"
                + extraSettings + " }\nchecks:\n" + GPU_CHECKS);
        return f;
    }

    private static String gpu(int i, String extra) {
        return "{ \"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-" + i + "\", \"pci_bus_id\": \"00000000:" + (19 + i) + ":00.0\","
                + " \"persistence_mode\": true, \"ecc_mode\": { \"current\": true },"
                + " \"ecc\": { \"volatile_corrected\": 0, \"volatile_uncorrected\": 0 },"
                + " \"remapped_rows\": { \"correctable\": 0, \"uncorrectable\": 0, \"pending\": false, \"failure\": false },"
                + " \"pcie\": { \"gen\": 5, \"max_gen\": 5, \"width\": 16, \"max_width\": 16, \"replay_counter\": 0 },"
                + " \"temperature\": 30, \"thresholds\": { \"slowdown\": 89, \"shutdown\": 92 },"
                + " \"clocks_event_reasons\": 1, \"power_usage_mw\": 70000, \"enforced_power_limit_mw\": 700000" + extra + " }";
    }

    private Map<String, String> fakeNvml(String scenario) throws Exception {
        Path s = dir.resolve("scenario.json");
        Files.writeString(s, scenario);
        String lib = System.getProperty("nhc.fakeNvml");
        assertTrue(lib != null && Files.isRegularFile(Path.of(lib)), "the fake NVML is built by the checks module's tests: " + lib);
        return Map.of("NHC_FAKE_NVML_SCENARIO", s.toString());
    }

    /** Issue 18 item 1: the XID catalogue as nhc judges it, from the packaged nhc. */
    @Test
    void listGpuXidPrintsEveryXidWithItsImpactRemedyAndSlurmState() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "list", "gpu.xid");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("application_window"), r.out());
        assertTrue(r.out().contains("XID catalogue (176 XIDs):"), r.out());
        assertTrue(r.out().contains("https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"), r.out());
        assertTrue(r.out().matches("(?s).*\\n\\s+62\\s+fatal\\s+reset-gpu\\s+drain\\s+RESET_GPU\\s+WARN THERMAL\\s+Internal micro-controller halt.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\n\\s+31\\s+warning\\+app\\s+restart-app\\s+-\\s+RESTART_APP\\s+WARN MEM\\s+GPU memory page fault.*"), r.out());
        assertTrue(r.out().contains("SXid catalogue (93 SXids):"), r.out());
        NhcProcess.Result diag = NhcProcess.run(dir, Map.of(), "list", "dcgm.diag");
        assertTrue(diag.out().matches("(?s).*\\n\\s+29\\s+DCGM_FR_PERSISTENCE_MODE\\s+CONFIG\\s+SOFTWARE_OTHER\\s+configuration\\s.*"), diag.out());
        NhcProcess.Result all = NhcProcess.run(dir, Map.of(), "list");
        assertTrue(!all.out().contains("XID catalogue ("), "the catalogues only when the probe is named");
    }

    @Test
    void runJudgesTwoHealthyFakeGpusAsPass() throws Exception {
        Map<String, String> env = fakeNvml("{ \"driver_version\": \"535.161.08\", \"gpus\": [ " + gpu(0, "") + ", " + gpu(1, "") + " ] }");
        NhcProcess.Result r = NhcProcess.run(dir, env, "run", "--nvml-library", System.getProperty("nhc.fakeNvml"), "-c", config("").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(": PASS (8 checks run, 0 skipped, 0 findings)"), r.out());
    }

    @Test
    void aHungNvmlCallFailsThatGpuAndTheRunStillEndsOnTime() throws Exception {
        Map<String, String> env = fakeNvml("{ \"gpus\": [ " + gpu(0, "") + ", "
                + gpu(1, ", \"delays_ms\": { \"nvmlDeviceGetRemappedRows\": 120000 }") + " ] }");
        NhcProcess.Result r = NhcProcess.run(dir, env, "run", "--json", "-c",
                config(", nvml_library: " + System.getProperty("nhc.fakeNvml")).toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.millis() < 8_000 + 10_000, "deadline 8 s (+ JVM start and slack); took " + r.millis() + " ms");
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        List<?> findings = (List<?>) m.get("findings");
        // The GPU's NVML thread stays blocked: the memory-repair check fails GPU 1 naming the call, and so does every
        // check that came to read GPU 1 after it (those that read it before got their values); GPU 0 passes.
        assertTrue(findings.stream().anyMatch(o -> "gpu-memory-repair".equals(((Map<?, ?>) o).get("check"))), r.out());
        for (Object o : findings) {
            Map<?, ?> f = (Map<?, ?>) o;
            assertEquals("GPU 1", f.get("entity"), f.toString());
            assertEquals("fail", f.get("severity"), f.toString());
            assertTrue(((String) f.get("message")).matches("GPU 1 \\(0000:20:00\\.0\\) not responding: nvmlDeviceGetRemappedRows blocked > [0-9.]+s"),
                    f.toString());
        }
    }

    @Test
    void withoutNvmlTheGpuChecksSayWhyAndExpectingGpusFails() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "-c",
                config(", nvml_library: " + dir.resolve("missing/libnvidia-ml.so.1")).toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("FAIL    gpus: ") && l.contains("cannot load NVML from "
                + dir.resolve("missing/libnvidia-ml.so.1") + " (settings.nvml_library): ") && l.contains("No such file or directory")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("UNKNOWN gpu-ecc: ")), "without an expected count the other GPU checks are unknown: " + r.out());
    }

    @Test
    void replayJudgesACaptureAndSkipsChecksItHasNoDataFor() throws Exception {
        Path capture = dir.resolve("retired.txt");
        Files.writeString(capture, """

                ==============NVSMI LOG==============

                Driver Version                            : 535.86.10

                Attached GPUs                             : 2
                GPU 00000001:00:00.0
                    Retired Pages
                        Single Bit ECC                    : 60
                        Double Bit ECC                    : 5
                        Pending Page Blacklist            : No

                GPU 00000002:00:00.0
                    Retired Pages
                        Single Bit ECC                    : 0
                        Double Bit ECC                    : 0
                        Pending Page Blacklist            : No
                """);
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config("").toString(), "--nvidia-smi-q", capture.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("gpu-memory-repair: GPU 0 (0001:00:00.0): 65 retired pages, the limit is 63"), r.out());
        assertTrue(r.out().contains("FAIL (1 check run, 7 skipped, 1 finding)"), r.out());
    }

    @Test
    void replayOfAGarbledCaptureNamesTheLineAndIsNeverAPass() throws Exception {
        Path capture = dir.resolve("garbled.txt");
        Files.writeString(capture, "\n==============NVSMI LOG==============\n\nAttached GPUs : 2\nGPU 00000001:00:00.0\n    Retired Pages\n"
                + "        Single Bit ECC : many\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config("").toString(), "--nvidia-smi-q", capture.toString());
        // issue 18 item 4: judged on what it holds, and what it lacks or garbles is unknown with the line, never a pass
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("UNKNOWN gpu-memory-repair: GPU 0: the capture " + capture
                + " is partial: GPU 0 (0001:00:00.0): line 7: expected a number for 'Single Bit ECC', found 'many'"), r.out());
        assertTrue(r.out().contains("UNKNOWN gpus: the capture " + capture + " is partial: the capture ends after 1 of the 2 GPUs 'Attached GPUs' announces"
                + " (line 4, last line 7): GPU 1 is not in it"), r.out());
        assertTrue(r.out().contains("replay: UNKNOWN"), r.out());
    }

    @Tag("fixtures")
    @Test
    void replayOfTheSharedCaptures() throws Exception {
        Path smi = Path.of(System.getProperty("nhc.fixtures")).resolve("nvidia-smi");
        Path c = config("");
        Files.writeString(c, Files.readString(c).replace("count: 2", "count: 8"));
        NhcProcess.Result healthy = NhcProcess.run(dir, Map.of(), "replay", "-c", c.toString(), "--nvidia-smi-q",
                smi.resolve("gpud-nvidia-smi-query.535.161.08.out.0.valid.txt").toString());
        // every GPU of that capture shows 'HW Power Brake Slowdown: Active': a warning each (issue 12), no failure
        assertEquals(0, healthy.exit(), healthy.out() + healthy.err());
        assertTrue(healthy.out().contains("replay: WARN (6 checks run, 2 skipped, 8 findings)"), healthy.out());
        assertTrue(healthy.out().contains("gpu-thermal: GPU 7 (0000:db:00.0): clocks cut by HW slowdown (HW power brake)"), healthy.out());

        Files.writeString(c, Files.readString(c).replace("count: 8, model: H100", "count: 4, model: A100"));
        NhcProcess.Result a100 = NhcProcess.run(dir, Map.of(), "replay", "--json", "-c", c.toString(), "--nvidia-smi-q",
                smi.resolve("thamada-A100SXMx4-nvidia-smi-q.txt").toString());
        assertEquals(1, a100.exit(), a100.out() + a100.err());
        Map<String, Object> m = JSON.std.mapFrom(a100.out());
        Map<?, ?> f = (Map<?, ?>) ((List<?>) m.get("findings")).get(0);
        assertEquals("GPU 1", f.get("entity"));
        assertEquals("reset-gpu", f.get("remedy"));

        NhcProcess.Result invalid = NhcProcess.run(dir, Map.of(), "replay", "-c", c.toString(), "--nvidia-smi-q",
                smi.resolve("gpud-nvidia-smi-query.535.183.01.out.0.invalid.txt").toString());
        // cut after GPU 0: GPU 0 is judged (an H100 where the config says A100), the seven GPUs it does not show are unknown
        assertEquals(1, invalid.exit(), invalid.out() + invalid.err());
        assertTrue(invalid.out().contains("FAIL    gpus: GPU 0 (0000:53:00.0) is a NVIDIA H100 80GB HBM3, expected A100"), invalid.out());
        assertTrue(invalid.out().contains("UNKNOWN gpu-ecc: the capture " + smi.resolve("gpud-nvidia-smi-query.535.183.01.out.0.invalid.txt")
                + " is partial: the capture ends after 1 of the 8 GPUs 'Attached GPUs' announces (line 7, last line 91): GPUs 1 to 7 are not in it"),
                invalid.out());
    }
}
