package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.amd.AmdSmiSessions;
import dev.nhc.checks.gpu.capture.JsonWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The project's fake libamd_smi.so (checks/src/test/c/fake_amdsmi.c), as tests drive it: surefire
 * passes the library's path as {@code nhc.fakeAmdSmi} and the scenario file's path as
 * NHC_FAKE_AMDSMI_SCENARIO; a test writes the scenario, and the next amdsmi_init (a fresh session)
 * reads it.
 */
public final class FakeAmdSmi {
    /** The XGMI links of an MI300X in an 8-GPU OAM platform: one to each of the 7 others, the eighth unused. */
    public static final int XGMI_LINKS = 7;

    private FakeAmdSmi() {
    }

    public static String library() {
        String lib = System.getProperty("nhc.fakeAmdSmi");
        if (lib == null || !Files.isRegularFile(Path.of(lib))) {
            throw new IllegalStateException("the fake AMD SMI is not built: system property nhc.fakeAmdSmi is " + lib
                    + " (run the tests through Maven, which compiles checks/src/test/c/fake_amdsmi.c)");
        }
        return lib;
    }

    public static Path scenarioFile() {
        String path = System.getenv("NHC_FAKE_AMDSMI_SCENARIO");
        if (path == null) {
            throw new IllegalStateException("NHC_FAKE_AMDSMI_SCENARIO is not set (surefire sets it)");
        }
        return Path.of(path);
    }

    public static Path eventsFile() {
        return Path.of(System.getenv("NHC_FAKE_AMDSMI_EVENTS"));
    }

    /** Writes the scenario, drops the AMD SMI sessions, and gives the fake NVML no GPUs: a node with AMD's GPUs only. */
    public static void use(Map<String, Object> scenario) throws IOException {
        use(scenario, true);
    }

    static void use(Map<String, Object> scenario, boolean onlyAmd) throws IOException {
        useRaw(JsonWriter.write(scenario));
        if (onlyAmd) {
            FakeNvml.onlyAmd();
        }
    }

    public static void useRaw(String json) throws IOException {
        AmdSmiSessions.closeAll();
        FakeGpus.write(scenarioFile(), json);
    }

    /** No AMD GPUs (what AMD SMI says on a node with NVIDIA's GPUs only). */
    static void onlyNvidia() throws IOException {
        useRaw("{ \"driver_version\": \"6.8.5\", \"gpus\": [] }");
    }

    public static Map<String, Object> scenario(List<Map<String, Object>> gpus) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("driver_version", "6.8.5");
        s.put("gpus", gpus);
        return s;
    }

    /** n healthy MI300X OAMs, as an 8-GPU MI300X platform shows them. */
    public static List<Map<String, Object>> healthyMi300xs(int n) {
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gpus.add(healthyMi300x(i));
        }
        return gpus;
    }

    /** The PCI address of fake MI300X number {@code i}: 0000:0c:00.0, 0000:22:00.0, … */
    public static String pci(int i) {
        return String.format("0000:%02x:00.0", 0x0c + 0x16 * i);
    }

    public static Map<String, Object> healthyMi300x(int i) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("market_name", "AMD Instinct MI300X");
        g.put("uuid", String.format("3fff74a1-0000-1000-80%02x-0000000000%02x", i, i));
        g.put("bdf", pci(i));
        g.put("vbios_version", "113-M3000100-102");
        g.put("ecc_enabled_blocks", 0x7ffff);
        Map<String, Object> ecc = new LinkedHashMap<>();
        for (String block : List.of("UMC", "SDMA", "GFX", "MMHUB", "PCIE_BIF", "HDP", "XGMI_WAFL")) {
            ecc.put(block, counts(0, 0, 0));
        }
        g.put("ecc", ecc);
        g.put("bad_pages", List.of());
        g.put("pcie", new LinkedHashMap<>(Map.of("width", 16, "max_width", 16, "speed", 32000, "max_speed", 32000,
                "interface_version", 5, "replay_count", 0, "l0_to_recovery_count", 0)));
        g.put("gfx_activity", 0);
        g.put("xgmi_error_status", 0);
        List<String> links = new ArrayList<>();
        for (int l = 0; l < XGMI_LINKS; l++) {
            links.add("up");
        }
        links.add("disabled");
        g.put("xgmi_links", links);
        g.put("temperature", new LinkedHashMap<>(Map.of("hotspot", 41, "vram", 35, "hotspot_critical", 100, "hotspot_emergency", 110,
                "vram_critical", 105)));
        g.put("violations", new LinkedHashMap<>(Map.of("prochot", 0, "ppt", 0, "socket_thermal", 0, "vr_thermal", 0, "hbm_thermal", 0)));
        g.put("power", new LinkedHashMap<>(Map.of("current_socket_w", 131, "cap_uw", 750_000_000L)));
        return g;
    }

    public static Map<String, Object> counts(long correctable, long uncorrectable, long deferred) {
        return new LinkedHashMap<>(Map.of("correctable", correctable, "uncorrectable", uncorrectable, "deferred", deferred));
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> section(Map<String, Object> gpu, String key) {
        return (Map<String, Object>) gpu.get(key);
    }
}
