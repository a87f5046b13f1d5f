package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.amd.AmdSmiViolations.Violation;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code amd-smi static --json}, {@code amd-smi metric --json}, {@code amd-smi list --json} and
 * {@code amd-smi bad-pages --json}, whole or with a subset of their options: a list of GPU entries,
 * each the sections the options asked for.
 */
final class AmdSmiJsonReader {
    private static final String NOT_AVAILABLE = AmdSmiValues.NOT_AVAILABLE;

    private final Consumer<String> problems;
    private final AmdSmiValues values;
    private final AmdSmiBadPages badPages;
    private String driverVersion;

    AmdSmiJsonReader(Consumer<String> problems) {
        this.problems = problems;
        this.values = new AmdSmiValues(problems);
        this.badPages = new AmdSmiBadPages(problems);
    }

    /** The driver's version, from the first GPU that shows it; null before {@link #read} or when none does. */
    String driverVersion() {
        return driverVersion;
    }

    List<CapturedAmdGpu> read(List<?> entries) {
        Map<Integer, CapturedAmdGpu> byIndex = new LinkedHashMap<>();
        int i = 0;
        for (Object e : entries) {
            i++;
            if (!(e instanceof Map<?, ?> m) || !(m.get("gpu") instanceof Number n)) {
                problems.accept("entry " + i + " of the list is not a GPU (no \"gpu\" index): " + AmdSmiValues.shorten(String.valueOf(e)));
                continue;
            }
            int index = n.intValue();
            if (byIndex.containsKey(index)) {
                problems.accept("GPU " + index + " appears twice");
                continue;
            }
            CapturedAmdGpu g = new CapturedAmdGpu(index);
            byIndex.put(index, g);
            gpu(g, m);
        }
        return new ArrayList<>(byIndex.values());
    }

    private void gpu(CapturedAmdGpu g, Map<?, ?> m) {
        String at = "GPU " + g.index;
        // amd-smi list --json: the GPU's address and UUID at its top level
        if (m.get("bdf") instanceof String bdf) {
            g.pciBusId = AmdSmiValues.pci(bdf);
            g.holds.add(GpuData.INVENTORY);
        }
        if (m.get("uuid") instanceof String uuid && !uuid.equals(NOT_AVAILABLE)) {
            g.uuid = uuid;
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> asic = values.section(m, "asic", at);
        if (asic != null) {
            g.name = AmdSmiValues.text(asic.get("market_name"));
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> bus = values.section(m, "bus", at);
        if (bus != null) {
            if (bus.get("bdf") instanceof String bdf) {
                g.pciBusId = AmdSmiValues.pci(bdf);
            }
            g.pcieMaxWidth = AmdSmiValues.positive(values.number(bus.get("max_pcie_width"), at, "bus.max_pcie_width", null));
            Long version = bus.get("pcie_interface_version") instanceof String v ? AmdSmiValues.gen(v) : null;
            g.pcieMaxGen = version != null ? version : values.speedToGen(bus.get("max_pcie_speed"), at, "bus.max_pcie_speed");
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> vbios = values.section(m, "vbios", at);
        if (vbios != null) {
            g.firmwareVersion = AmdSmiValues.text(vbios.containsKey("version") ? vbios.get("version") : vbios.get("vbios_version"));
        }
        Map<?, ?> driver = values.section(m, "driver", at);
        if (driver != null && driverVersion == null) {
            driverVersion = AmdSmiValues.text(driver.get("version"));
        }
        Map<?, ?> ras = values.section(m, "ras", at);
        if (ras != null && ras.get("ecc_block_state") instanceof Map<?, ?> states && states.get("UMC") instanceof String umc) {
            g.eccEnabled = !umc.equals("DISABLED") && !umc.equals("NONE");
        }
        Map<?, ?> limit = values.section(m, "limit", at);
        if (limit != null) {
            AmdSmiValues.putIfKnown(g.thresholds, TemperatureThreshold.SLOWDOWN,
                    values.celsius(limit.get("slowdown_hotspot_temperature"), at, "limit.slowdown_hotspot_temperature"));
            AmdSmiValues.putIfKnown(g.thresholds, TemperatureThreshold.SHUTDOWN,
                    values.celsius(limit.get("shutdown_hotspot_temperature"), at, "limit.shutdown_hotspot_temperature"));
            AmdSmiValues.putIfKnown(g.thresholds, TemperatureThreshold.MEM_MAX,
                    values.celsius(limit.get("slowdown_vram_temperature"), at, "limit.slowdown_vram_temperature"));
            g.powerLimitMilliwatts = values.milliwatts(limit.get("socket_power"), at, "limit.socket_power");
        }
        metric(g, m, at);
        badPages.json(g, m, at);
    }

    private void metric(CapturedAmdGpu g, Map<?, ?> m, String at) {
        Map<?, ?> usage = values.section(m, "usage", at);
        if (usage != null) {
            g.gpuUtilization = values.number(usage.get("gfx_activity"), at, "usage.gfx_activity", "%");
        }
        Map<?, ?> temperature = values.section(m, "temperature", at);
        if (temperature != null) {
            g.temperature = AmdSmiValues.positive(values.celsius(temperature.get("hotspot"), at, "temperature.hotspot"));
            g.memoryTemperature = AmdSmiValues.positive(values.celsius(temperature.get("mem"), at, "temperature.mem"));
            g.holds.add(GpuData.THERMAL);
        }
        Map<?, ?> power = values.section(m, "power", at);
        if (power != null) {
            g.powerMilliwatts = values.milliwatts(power.get("socket_power"), at, "power.socket_power");
            g.holds.add(GpuData.POWER);
        }
        Map<?, ?> throttle = values.section(m, "throttle", at);
        if (throttle != null) {
            Map<Violation, Boolean> reported = new EnumMap<>(Violation.class);
            for (Violation v : Violation.values()) {
                Object s = throttle.get(v.statusKey());
                if ("ACTIVE".equals(s) || Boolean.TRUE.equals(s)) {
                    reported.put(v, true);
                } else if ("NOT ACTIVE".equals(s) || Boolean.FALSE.equals(s)) {
                    reported.put(v, false);
                } else if (s != null && !NOT_AVAILABLE.equals(s)) {
                    problems.accept(at + ": throttle." + v.statusKey() + " is " + AmdSmiValues.shorten(String.valueOf(s))
                            + ", expected ACTIVE, NOT ACTIVE or N/A");
                }
            }
            g.throttle = AmdSmiViolations.of(reported);
            g.holds.add(GpuData.THERMAL);
        }
        Map<?, ?> pcie = values.section(m, "pcie", at);
        if (pcie != null) {
            g.pcieWidth = AmdSmiValues.positive(values.number(pcie.get("width"), at, "pcie.width", null));
            g.pcieGen = values.speedToGen(pcie.get("speed"), at, "pcie.speed");
            g.pcieReplays = values.number(pcie.get("replay_count"), at, "pcie.replay_count", null);
            g.pcieRecoveries = values.number(pcie.get("l0_to_recovery_count"), at, "pcie.l0_to_recovery_count", null);
            g.holds.add(GpuData.PCIE);
        }
        Map<?, ?> ecc = values.section(m, "ecc", at);
        if (ecc != null) {
            AmdSmiValues.putIfKnown(g.eccTotal, EccError.CORRECTED,
                    values.number(ecc.get("total_correctable_count"), at, "ecc.total_correctable_count", null));
            AmdSmiValues.putIfKnown(g.eccTotal, EccError.UNCORRECTED,
                    values.number(ecc.get("total_uncorrectable_count"), at, "ecc.total_uncorrectable_count", null));
            AmdSmiValues.putIfKnown(g.eccTotal, EccError.DEFERRED,
                    values.number(ecc.get("total_deferred_count"), at, "ecc.total_deferred_count", null));
            g.holds.add(GpuData.ECC);
        }
        Map<?, ?> blocks = values.section(m, "ecc_blocks", at);
        if (blocks != null) {
            blocks.forEach((name, counts) -> eccBlock(g, String.valueOf(name), counts, at));
            g.holds.add(GpuData.ECC);
        }
        if (m.get("xgmi_err") instanceof String status && !status.equals(NOT_AVAILABLE)) {
            g.linkErrorStatus = switch (status.replace("AMDSMI_XGMI_STATUS_", "")) {
                case "NO_ERRORS" -> "no errors";
                case "ERROR" -> "error";
                case "MULTIPLE_ERRORS" -> "multiple errors";
                default -> {
                    problems.accept(at + ": xgmi_err is " + AmdSmiValues.shorten(status)
                            + ", expected AMDSMI_XGMI_STATUS_NO_ERRORS, _ERROR or _MULTIPLE_ERRORS");
                    yield null;
                }
            };
            g.holds.add(GpuData.NVLINK);
        }
    }

    private void eccBlock(CapturedAmdGpu g, String name, Object counts, String at) {
        EccBlock block = null;
        for (EccBlock b : EccBlock.of(GpuVendor.AMD)) {
            if (name.equals(b.nameFor(GpuVendor.AMD))) {
                block = b;
            }
        }
        if (block == null || !(counts instanceof Map<?, ?> c)) {
            return;     // a block nhc does not judge (a newer one), or N/A
        }
        String key = "ecc_blocks." + name;
        Map<EccError, Long> m = g.eccByBlock.computeIfAbsent(block, b -> new EnumMap<>(EccError.class));
        AmdSmiValues.putIfKnown(m, EccError.CORRECTED, values.number(c.get("correctable_count"), at, key + ".correctable_count", null));
        AmdSmiValues.putIfKnown(m, EccError.UNCORRECTED, values.number(c.get("uncorrectable_count"), at, key + ".uncorrectable_count", null));
        AmdSmiValues.putIfKnown(m, EccError.DEFERRED, values.number(c.get("deferred_count"), at, key + ".deferred_count", null));
    }
}
