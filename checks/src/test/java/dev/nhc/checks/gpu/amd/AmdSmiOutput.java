package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.capture.JsonWriter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code amd-smi} would print for GPUs of a fake-AMD-SMI scenario ({@code FakeAmdSmi}), in
 * the shape amd-smi's source prints it (amdsmi_cli/amdsmi_commands.py of ROCm/amdsmi): a list of
 * GPUs, or {@code {"gpu_data": [...]}} as from ROCm 6.4; {@code {"value", "unit"}} objects.
 * No public complete capture of a datacenter GPU exists to test with (see
 * src/test/resources/captures/amd/SOURCES), so the replay is held to the same verdict as the live
 * library on the same GPUs instead.
 */
final class AmdSmiOutput {
    private AmdSmiOutput() {
    }

    static String staticJson(List<Map<String, Object>> gpus, boolean gpuData) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < gpus.size(); i++) {
            Map<String, Object> g = gpus.get(i);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("gpu", i);
            e.put("asic", map("market_name", g.get("market_name"), "vendor_id", "0x1002", "device_id", "0x74a1"));
            Map<String, Object> pcie = section(g, "pcie");
            e.put("bus", map("bdf", g.get("bdf"), "max_pcie_width", pcie.get("max_width"),
                    "max_pcie_speed", unit(((Number) pcie.get("max_speed")).longValue() / 1000, "GT/s"),
                    "pcie_interface_version", "Gen " + pcie.get("interface_version"), "slot_type", "OAM"));
            e.put("vbios", map("name", "AMD MI300X_HW_SRIOV_CVS_1VF", "build_date", "2023/12/25 18:32", "part_number", g.get("vbios_version"),
                    "version", g.get("vbios_version")));
            Map<String, Object> t = section(g, "temperature");
            Map<String, Object> p = section(g, "power");
            e.put("limit", map("max_power", unit(750, "W"), "min_power", unit(0, "W"),
                    "socket_power", unit(((Number) p.get("cap_uw")).longValue() / 1_000_000, "W"),
                    "slowdown_edge_temperature", "N/A", "slowdown_hotspot_temperature", unit(t.get("hotspot_critical"), "C"),
                    "slowdown_vram_temperature", unit(t.get("vram_critical"), "C"), "shutdown_edge_temperature", "N/A",
                    "shutdown_hotspot_temperature", unit(t.get("hotspot_emergency"), "C"), "shutdown_vram_temperature", "N/A"));
            e.put("driver", map("name", "amdgpu", "version", "6.8.5"));
            Map<String, Object> states = new LinkedHashMap<>();
            for (String block : section(g, "ecc").keySet()) {
                states.put(block, "ENABLED");
            }
            e.put("ras", map("eeprom_version", "0x30000", "parity_schema", "DISABLED", "single_bit_schema", "DISABLED",
                    "double_bit_schema", "DISABLED", "poison_schema", "ENABLED", "ecc_block_state", states));
            out.add(e);
        }
        return JsonWriter.write(gpuData ? Map.of("gpu_data", out) : out);
    }

    static String metricJson(List<Map<String, Object>> gpus, boolean gpuData) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < gpus.size(); i++) {
            Map<String, Object> g = gpus.get(i);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("gpu", i);
            e.put("usage", map("gfx_activity", unit(g.get("gfx_activity"), "%"), "umc_activity", unit(0, "%"), "mm_activity", "N/A"));
            Map<String, Object> p = section(g, "power");
            e.put("power", map("socket_power", unit(p.get("current_socket_w"), "W"), "gfx_voltage", "N/A", "soc_voltage", "N/A",
                    "mem_voltage", "N/A", "throttle_status", "N/A", "power_management", "ENABLED"));
            Map<String, Object> t = section(g, "temperature");
            e.put("temperature", map("edge", "N/A", "hotspot", unit(t.get("hotspot"), "C"), "mem", unit(t.get("vram"), "C")));
            Map<String, Object> pcie = section(g, "pcie");
            e.put("pcie", map("width", pcie.get("width"), "speed", unit(((Number) pcie.get("speed")).longValue() / 1000, "GT/s"),
                    "bandwidth", unit(18, "Mb/s"), "replay_count", pcie.get("replay_count"),
                    "l0_to_recovery_count", pcie.get("l0_to_recovery_count"), "replay_roll_over_count", 0, "nak_sent_count", 0,
                    "nak_received_count", 0, "current_bandwidth_sent", "N/A", "current_bandwidth_received", "N/A", "max_packet_size", "N/A"));
            long[] total = new long[3];
            Map<String, Object> blocks = new LinkedHashMap<>();
            section(g, "ecc").forEach((block, v) -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> c = (Map<String, Object>) v;
                long ce = ((Number) c.get("correctable")).longValue();
                long ue = ((Number) c.get("uncorrectable")).longValue();
                long de = ((Number) c.get("deferred")).longValue();
                total[0] += ce;
                total[1] += ue;
                total[2] += de;
                blocks.put(block, map("correctable_count", ce, "uncorrectable_count", ue, "deferred_count", de));
            });
            e.put("ecc", map("total_correctable_count", total[0], "total_uncorrectable_count", total[1], "total_deferred_count", total[2],
                    "cache_correctable_count", 0, "cache_uncorrectable_count", 0));
            e.put("ecc_blocks", blocks);
            e.put("xgmi_err", switch (((Number) g.get("xgmi_error_status")).intValue()) {
                case 0 -> "AMDSMI_XGMI_STATUS_NO_ERRORS";
                case 1 -> "AMDSMI_XGMI_STATUS_ERROR";
                default -> "AMDSMI_XGMI_STATUS_MULTIPLE_ERRORS";
            });
            Map<String, Object> v = section(g, "violations");
            Map<String, Object> throttle = new LinkedHashMap<>();
            throttle.put("accumulation_counter", 3808991);
            for (String key : List.of("prochot", "ppt", "socket_thermal", "vr_thermal", "hbm_thermal")) {
                throttle.put(key + "_accumulated", 0);
            }
            for (String key : List.of("prochot", "ppt", "socket_thermal", "vr_thermal", "hbm_thermal")) {
                throttle.put(key + "_violation_status", ((Number) v.get(key)).intValue() == 1 ? "ACTIVE" : "NOT ACTIVE");
            }
            for (String key : List.of("prochot", "ppt", "socket_thermal", "vr_thermal", "hbm_thermal")) {
                throttle.put(key + "_violation_activity", unit(0, "%"));
            }
            e.put("throttle", throttle);
            out.add(e);
        }
        return JsonWriter.write(gpuData ? Map.of("gpu_data", out) : out);
    }

    /** {@code amd-smi bad-pages --json}: per status a message, one page or a list of pages. */
    static String badPagesJson(List<Map<String, Object>> gpus) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < gpus.size(); i++) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("gpu", i);
            e.put("retired", pages(gpus.get(i), "reserved", "RESERVED"));
            e.put("pending", pages(gpus.get(i), "pending", "PENDING"));
            e.put("un_res", pages(gpus.get(i), "unreservable", "UNRESERVABLE"));
            out.add(e);
        }
        return JsonWriter.write(out);
    }

    /** {@code amd-smi bad-pages} as text. */
    static String badPagesText(List<Map<String, Object>> gpus) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < gpus.size(); i++) {
            b.append("GPU: ").append(i).append('\n');
            for (String[] s : new String[][] {{"RETIRED", "reserved"}, {"PENDING", "pending"}, {"UN_RES", "unreservable"}}) {
                long n = badPages(gpus.get(i)).stream().filter(s[1]::equals).count();
                if (n == 0) {
                    b.append("    ").append(s[0]).append(": No bad pages found.\n");
                    continue;
                }
                b.append("    ").append(s[0]).append(":\n");
                for (int page = 0; page < n; page++) {
                    b.append("        PAGE_ADDRESS: 0x").append(Long.toHexString(0x5c7e00L + page)).append('\n')
                            .append("        PAGE_SIZE: 4096\n        STATUS: ").append(s[0].equals("UN_RES") ? "UNRESERVABLE" : s[1].toUpperCase())
                            .append('\n');
                }
            }
            b.append(" \n");
        }
        return b.toString();
    }

    private static Object pages(Map<String, Object> gpu, String status, String printed) {
        List<Object> pages = new ArrayList<>();
        for (String s : badPages(gpu)) {
            if (s.equals(status)) {
                pages.add(map("page_address", 0x5c7e00L + pages.size(), "page_size", 4096, "status", printed));
            }
        }
        return pages.isEmpty() ? "No bad pages found." : pages.size() == 1 ? pages.get(0) : pages;
    }

    @SuppressWarnings("unchecked")
    private static List<String> badPages(Map<String, Object> gpu) {
        return (List<String>) gpu.get("bad_pages");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, Object> gpu, String key) {
        return (Map<String, Object>) gpu.get(key);
    }

    private static Map<String, Object> unit(Object value, String unit) {
        return map("value", value, "unit", unit);
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
