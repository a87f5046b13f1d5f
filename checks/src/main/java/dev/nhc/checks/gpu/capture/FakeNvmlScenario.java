package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuFabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a capture into a scenario for the project's fake libnvidia-ml (schema:
 * checks/src/test/c/fake_nvml.md), so that every real capture also runs through the JNA path.
 * What the capture does not show is left out, which the fake answers with NOT_SUPPORTED — the
 * same "absent" the capture itself means. NVML numbers GPUs by position, so a GPU the capture
 * leaves out before one it shows (GPUs 0–6 of {@code nvidia-smi nvlink -s -i 7}) becomes a GPU
 * with no values at all; a GPU the capture names by its address alone (an error line) has no place.
 */
public final class FakeNvmlScenario {

    private FakeNvmlScenario() {
    }

    public static String json(GpuCapture capture) {
        return JsonWriter.write(from(capture));
    }

    public static Map<String, Object> from(GpuCapture capture) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("source", capture.source());
        if (capture.driverVersion() != null) {
            s.put("driver_version", capture.driverVersion());
        }
        if (capture.unavailable() != null) {
            s.put("returns", Map.of("nvmlInit_v2", 9)); // NVML cannot be used: the capture says why only in words
        }
        List<Object> gpus = new ArrayList<>();
        for (CapturedGpu g : capture.gpus()) {
            if (g.index() < 0) {
                continue; // named by its address alone: NVML has no index for it to answer at
            }
            while (gpus.size() < g.index()) {
                gpus.add(new LinkedHashMap<String, Object>());
            }
            gpus.add(gpu(g));
        }
        s.put("gpus", gpus);
        return s;
    }

    private static Map<String, Object> gpu(CapturedGpu g) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (g.lost != null) {
            put(m, "pci_bus_id", g.pciBusId);
            m.put("returns", Map.of("nvmlDeviceGetHandleByIndex_v2", 15)); // GPU_IS_LOST
            return m;
        }
        put(m, "name", g.name);
        put(m, "uuid", g.uuid);
        put(m, "pci_bus_id", g.pciBusId);
        put(m, "persistence_mode", g.persistenceMode);
        if (g.eccEnabled != null) {
            m.put("ecc_mode", Map.of("current", g.eccEnabled, "pending", g.eccEnabled));
        }
        if (!g.ecc.isEmpty()) {
            m.put("ecc", new LinkedHashMap<>(g.ecc));
        }
        if (g.remappedRows != null) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("correctable", g.remappedRows.correctable());
            r.put("uncorrectable", g.remappedRows.uncorrectable());
            r.put("pending", g.remappedRows.pending());
            r.put("failure", g.remappedRows.failure());
            m.put("remapped_rows", r);
        }
        Map<String, Object> retired = new LinkedHashMap<>();
        put(retired, "sbe", g.retiredSbe);
        put(retired, "dbe", g.retiredDbe);
        put(retired, "pending", g.retiredPending);
        if (!retired.isEmpty()) {
            m.put("retired_pages", retired);
        }
        Map<String, Object> pcie = new LinkedHashMap<>();
        put(pcie, "gen", g.pcieGen);
        put(pcie, "max_gen", g.pcieMaxGen);
        put(pcie, "width", g.pcieWidth);
        put(pcie, "max_width", g.pcieMaxWidth);
        put(pcie, "replay_counter", g.pcieReplays);
        if (!pcie.isEmpty()) {
            m.put("pcie", pcie);
        }
        if (g.nvlinks != null) {
            List<Object> links = new ArrayList<>();
            for (Boolean up : g.nvlinks) {
                Map<String, Object> link = new LinkedHashMap<>();
                // a gap in the capture's numbering: a link NVML would report NOT_SUPPORTED for
                link.put("active", up);
                links.add(link);
            }
            m.put("nvlinks", links);
        }
        put(m, "temperature", g.temperature);
        put(m, "memory_temperature", g.memoryTemperature);
        if (!g.thresholds.isEmpty()) {
            Map<String, Object> t = new LinkedHashMap<>();
            for (Map.Entry<TemperatureThreshold, Long> e : g.thresholds.entrySet()) {
                t.put(e.getKey().name().toLowerCase(Locale.ROOT), e.getValue());
            }
            m.put("thresholds", t);
        }
        put(m, "clocks_event_reasons", g.clocksEventReasons);
        put(m, "performance_state", g.performanceState);
        if (g.gpuUtilization != null) {
            m.put("utilization", Map.of("gpu", g.gpuUtilization));
        }
        put(m, "power_usage_mw", g.powerMilliwatts);
        put(m, "enforced_power_limit_mw", g.powerLimitMilliwatts);
        if (g.fabric != null && g.fabric.state() != null) {
            m.put("fabric", fabric(g.fabric));
        }
        return m;
    }

    /** nvmlGpuFabricInfo's values: a status other than success becomes NVML_ERROR_UNKNOWN (the capture shows only its text). */
    private static Map<String, Object> fabric(GpuFabric f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", f.state().ordinal());
        m.put("status", Boolean.FALSE.equals(f.statusOk()) ? 999 : 0);
        put(m, "clique_id", f.cliqueId());
        put(m, "cluster_uuid", f.clusterUuid());
        put(m, "health_mask", f.healthMask());
        if (f.health() != null) {
            m.put("health_summary", f.health().ordinal() + 1);
        }
        return m;
    }

    private static void put(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
