package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code rocm-smi -a --json} (and any {@code rocm-smi --show… --json}), where sites still run it: one object per card. */
final class RocmSmiJsonReader {
    static final Pattern CARD = Pattern.compile("card(\\d+)");
    private static final Pattern ROCM_PCIE_LEVEL = Pattern.compile("\\(?([0-9.]+)\\s*GT/s\\s*x(\\d+)");

    private final Consumer<String> problems;
    private final AmdSmiValues values;
    private String driverVersion;

    RocmSmiJsonReader(Consumer<String> problems) {
        this.problems = problems;
        this.values = new AmdSmiValues(problems);
    }

    /** The driver's version from the document's "system" object; null before {@link #read} or when it has none. */
    String driverVersion() {
        return driverVersion;
    }

    List<CapturedAmdGpu> read(Map<?, ?> doc) {
        List<CapturedAmdGpu> out = new ArrayList<>();
        if (doc.get("system") instanceof Map<?, ?> system) {
            driverVersion = AmdSmiValues.text(system.get("Driver version"));
        }
        doc.forEach((k, v) -> {
            Matcher mc = CARD.matcher(String.valueOf(k));
            if (!mc.matches()) {
                return;
            }
            if (!(v instanceof Map<?, ?> card)) {
                problems.accept(k + " is " + AmdSmiValues.shorten(String.valueOf(v)) + ", expected an object");
                return;
            }
            CapturedAmdGpu g = new CapturedAmdGpu(Integer.parseInt(mc.group(1)));
            String at = String.valueOf(k);
            Map<String, Object> c = new LinkedHashMap<>();
            card.forEach((key, value) -> c.put(String.valueOf(key).toLowerCase(Locale.ROOT), value));
            if (c.get("pci bus") instanceof String bus) {
                g.pciBusId = AmdSmiValues.pci(bus);
            }
            g.name = AmdSmiValues.text(c.containsKey("card series") ? c.get("card series") : c.get("card model"));
            g.uuid = AmdSmiValues.text(c.get("unique id"));
            g.firmwareVersion = AmdSmiValues.text(c.get("vbios version"));
            g.holds.add(GpuData.INVENTORY);
            Long junction = values.celsius(c.get("temperature (sensor junction) (c)"), at, "Temperature (Sensor junction) (C)");
            Long memory = values.celsius(c.get("temperature (sensor memory) (c)"), at, "Temperature (Sensor memory) (C)");
            if (junction != null || memory != null) {
                g.temperature = AmdSmiValues.positive(junction);
                g.memoryTemperature = AmdSmiValues.positive(memory);
                g.holds.add(GpuData.THERMAL);
            }
            if (c.get("pcie clock level") instanceof String level) {
                Matcher ml = ROCM_PCIE_LEVEL.matcher(level);
                if (ml.find()) {
                    g.pcieGen = AmdSmiValues.gtToGen(Double.parseDouble(ml.group(1)));
                    g.pcieWidth = Long.parseLong(ml.group(2));
                }
            }
            g.pcieReplays = values.number(c.get("pcie replay count"), at, "PCIe Replay Count", null);
            if (g.pcieGen != null || g.pcieReplays != null) {
                g.holds.add(GpuData.PCIE);
            }
            Object power = c.containsKey("current socket graphics package power (w)") ? c.get("current socket graphics package power (w)")
                    : c.get("average graphics package power (w)");
            g.powerMilliwatts = values.milliwatts(power, at, "Graphics Package Power (W)");
            g.powerLimitMilliwatts = values.milliwatts(c.get("max graphics package power (w)"), at, "Max Graphics Package Power (W)");
            if (g.powerMilliwatts != null) {
                g.holds.add(GpuData.POWER);
            }
            out.add(g);
        });
        return out;
    }
}
