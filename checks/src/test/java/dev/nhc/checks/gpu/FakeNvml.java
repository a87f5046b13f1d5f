package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.capture.JsonWriter;
import dev.nhc.checks.gpu.nvml.NvmlSessions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The project's fake libnvidia-ml.so.1 (checks/src/test/c), as tests drive it: surefire passes the
 * library's path as {@code nhc.fakeNvml} and the scenario file's path as NHC_FAKE_NVML_SCENARIO;
 * a test writes the scenario, and the next nvmlInit_v2 (a fresh session) reads it.
 */
public final class FakeNvml {

    private FakeNvml() {
    }

    public static String library() {
        String lib = System.getProperty("nhc.fakeNvml");
        if (lib == null || !Files.isRegularFile(Path.of(lib))) {
            throw new IllegalStateException("the fake NVML is not built: system property nhc.fakeNvml is " + lib
                    + " (run the tests through Maven, which compiles checks/src/test/c/fake_nvml.c)");
        }
        return lib;
    }

    public static Path scenarioFile() {
        String path = System.getenv("NHC_FAKE_NVML_SCENARIO");
        if (path == null) {
            throw new IllegalStateException("NHC_FAKE_NVML_SCENARIO is not set (surefire sets it)");
        }
        return Path.of(path);
    }

    public static Path eventsFile() {
        return Path.of(System.getenv("NHC_FAKE_NVML_EVENTS"));
    }

    /**
     * Writes the scenario and drops the NVML sessions so that the next probe initialises against it.
     * The fake AMD SMI, which GPU pipelines load too ({@link FakeGpus}), is given no GPUs: a node
     * with both vendors' libraries and NVIDIA's GPUs only.
     */
    public static void use(Map<String, Object> scenario) throws IOException {
        useRaw(JsonWriter.write(scenario));
    }

    public static void useRaw(String json) throws IOException {
        NvmlSessions.closeAll();
        FakeGpus.write(scenarioFile(), json);
        FakeAmdSmi.onlyNvidia();
    }

    /** No NVIDIA GPUs: what the fake NVML says on a node with AMD's GPUs only (a count of 0). */
    static void onlyAmd() throws IOException {
        NvmlSessions.closeAll();
        FakeGpus.write(scenarioFile(), "{ \"driver_version\": \"535.161.08\", \"gpus\": [] }");
    }

    public static Map<String, Object> scenario(List<Map<String, Object>> gpus) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("driver_version", "535.161.08");
        s.put("gpus", gpus);
        return s;
    }

    /** n healthy H100 SXM GPUs, as the 8× H100 capture shows them. */
    public static List<Map<String, Object>> healthyH100s(int n) {
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gpus.add(healthyH100(i));
        }
        return gpus;
    }

    public static Map<String, Object> healthyH100(int i) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("name", "NVIDIA H100 80GB HBM3");
        g.put("uuid", String.format("GPU-00000000-0000-0000-0000-%012d", i));
        g.put("pci_bus_id", String.format("00000000:%02X:00.0", 0x19 + 0x10 * i));
        g.put("persistence_mode", true);
        g.put("ecc_mode", Map.of("current", true, "pending", true));
        Map<String, Object> ecc = new LinkedHashMap<>();
        for (String c : List.of("volatile", "aggregate")) {
            for (String t : List.of("corrected", "uncorrected")) {
                ecc.put(c + "_" + t, 0);
                ecc.put(c + "_dram_" + t, 0);
                ecc.put(c + "_sram_" + t, 0);
            }
        }
        g.put("ecc", ecc);
        g.put("remapped_rows", new LinkedHashMap<>(Map.of("correctable", 0, "uncorrectable", 0, "pending", false, "failure", false)));
        g.put("pcie", new LinkedHashMap<>(Map.of("gen", 5, "max_gen", 5, "width", 16, "max_width", 16, "replay_counter", 67)));
        List<Map<String, Object>> links = new ArrayList<>();
        for (int l = 0; l < 18; l++) {
            links.add(new LinkedHashMap<>(Map.of("active", true, "replay", 0, "recovery", 0, "crc_flit", 0, "crc_data", 0)));
        }
        g.put("nvlinks", links);
        g.put("temperature", 29);
        g.put("memory_temperature", 39);
        g.put("thresholds", new LinkedHashMap<>(Map.of("shutdown", 92, "slowdown", 89, "mem_max", 95, "gpu_max", 87)));
        g.put("clocks_event_reasons", 0);
        g.put("performance_state", 0);
        g.put("utilization", new LinkedHashMap<>(Map.of("gpu", 0, "memory", 0)));
        g.put("power_usage_mw", 67740);
        g.put("enforced_power_limit_mw", 700000);
        return g;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> section(Map<String, Object> gpu, String key) {
        return (Map<String, Object>) gpu.get(key);
    }
}
