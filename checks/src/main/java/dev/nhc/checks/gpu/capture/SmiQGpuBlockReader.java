package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.RemappedRows;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.capture.SmiQTree.Node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One GPU's block of {@code nvidia-smi -q} (or the part of one a capture holds) as a
 * {@link CapturedGpu}: each section it shows is data the capture provides, and a problem in a
 * section leaves that kind of data of that GPU unread ({@link SmiQGaps}).
 */
final class SmiQGpuBlockReader {
    /** nvmlClocksEventReason bits by the names nvidia-smi prints. */
    private static final Map<String, Long> CLOCK_EVENTS = new LinkedHashMap<>();

    static {
        CLOCK_EVENTS.put("Idle", 0x1L);
        CLOCK_EVENTS.put("Applications Clocks Setting", 0x2L);
        CLOCK_EVENTS.put("SW Power Cap", 0x4L);
        CLOCK_EVENTS.put("HW Slowdown", 0x8L);
        CLOCK_EVENTS.put("Sync Boost", 0x10L);
        CLOCK_EVENTS.put("SW Thermal Slowdown", 0x20L);
        CLOCK_EVENTS.put("HW Thermal Slowdown", 0x40L);
        CLOCK_EVENTS.put("HW Power Brake Slowdown", 0x80L);
        CLOCK_EVENTS.put("Display Clock Setting", 0x100L);
    }

    private final SmiQGaps gaps;
    private final SmiQReadings values;

    SmiQGpuBlockReader(SmiQGaps gaps, SmiQReadings values) {
        this.gaps = gaps;
        this.values = values;
    }

    /** @param provides collects the kinds of data the capture holds, over all its GPUs */
    CapturedGpu read(int index, Node b, Set<GpuData> provides) {
        CapturedGpu g = new CapturedGpu(index);
        gaps.enter(g);
        if (b.key.startsWith("GPU ") && !b.key.equals("GPU ?")) {
            g.pciBusId = PciBusId.normalize(b.key.substring("GPU ".length()));
        }
        Node busId = b.path("PCI", "Bus Id");
        if (busId != null && SmiQValues.text(busId) != null) {
            g.pciBusId = PciBusId.normalize(SmiQValues.text(busId));
        }
        if (b.child("Product Name") != null) {
            gaps.section(GpuData.INVENTORY);
            provide(g, provides, GpuData.INVENTORY);
            g.name = SmiQValues.text(b.child("Product Name"));
            g.uuid = SmiQValues.text(b.child("GPU UUID"));
            g.persistenceMode = values.flag(b.child("Persistence Mode"));
        }
        Node eccMode = b.path("ECC Mode", "Current");
        gaps.section(GpuData.ECC);
        if (eccMode != null) {
            g.eccEnabled = values.flag(eccMode);
        }
        Node ecc = b.child("ECC Errors");
        if (ecc != null) {
            provide(g, provides, GpuData.ECC);
            ecc(g, ecc.child("Volatile"), EccCounter.VOLATILE);
            ecc(g, ecc.child("Aggregate"), EccCounter.AGGREGATE);
        }
        memoryRepair(g, b, provides);
        Node pci = b.child("PCI");
        gaps.section(GpuData.PCIE);
        if (pci != null) {
            provide(g, provides, GpuData.PCIE);
            g.pcieGen = values.number(pci.path("GPU Link Info", "PCIe Generation", "Current"));
            g.pcieMaxGen = values.number(pci.path("GPU Link Info", "PCIe Generation", "Max"));
            g.pcieWidth = values.number(pci.path("GPU Link Info", "Link Width", "Current"));
            g.pcieMaxWidth = values.number(pci.path("GPU Link Info", "Link Width", "Max"));
            g.pcieReplays = values.number(pci.child("Replays Since Reset"));
        }
        // Whether the GPU is busy, for judging a slower PCIe link (a GPU at rest lowers it to save power).
        g.performanceState = values.performanceState(b.child("Performance State"));
        g.gpuUtilization = values.number(b.path("Utilization", "Gpu"));
        thermal(g, b, provides);
        Node power = b.firstChild("GPU Power Readings", "Power Readings");
        gaps.section(GpuData.POWER);
        if (power != null) {
            provide(g, provides, GpuData.POWER);
            Double draw = values.decimal(power.firstChild("Power Draw", "Instantaneous Power Draw", "Average Power Draw"));
            Double limit = values.decimal(power.firstChild("Current Power Limit", "Enforced Power Limit"));
            g.powerMilliwatts = draw == null ? null : Math.round(draw * 1000);
            g.powerLimitMilliwatts = limit == null ? null : Math.round(limit * 1000);
        }
        Node fabric = b.child("Fabric");
        gaps.section(GpuData.FABRIC);
        if (fabric != null) {
            provide(g, provides, GpuData.FABRIC);
            g.fabric = CapturedFabric.parse(fabric, gaps);
        }
        gaps.leave();
        return g;
    }

    private void memoryRepair(CapturedGpu g, Node b, Set<GpuData> provides) {
        gaps.section(GpuData.MEMORY_REPAIR);
        Node remap = b.child("Remapped Rows");
        Node retired = b.child("Retired Pages");
        if (remap != null || retired != null) {
            provide(g, provides, GpuData.MEMORY_REPAIR);
        }
        if (remap != null) {
            Long corr = values.number(remap.child("Correctable Error"));
            Long unc = values.number(remap.child("Uncorrectable Error"));
            Boolean pending = values.flag(remap.child("Pending"));
            Boolean failure = values.flag(remap.child("Remapping Failure Occurred"));
            if (corr != null && unc != null && pending != null && failure != null) {
                g.remappedRows = new RemappedRows(corr, unc, pending, failure);
            }
        }
        if (retired != null) {
            g.retiredSbe = values.number(retired.child("Single Bit ECC"));
            g.retiredDbe = values.number(retired.child("Double Bit ECC"));
            for (Node c : retired.children) {
                if (c.key.startsWith("Pending")) {
                    g.retiredPending = values.flag(c);
                }
            }
        }
    }

    private void thermal(CapturedGpu g, Node b, Set<GpuData> provides) {
        gaps.section(GpuData.THERMAL);
        Node temp = b.child("Temperature");
        if (temp != null) {
            provide(g, provides, GpuData.THERMAL);
            g.temperature = values.number(temp.child("GPU Current Temp"));
            g.memoryTemperature = values.number(temp.child("Memory Current Temp"));
            // The "T.Limit" rows of newer drivers are margins, not temperatures: not thresholds.
            putThreshold(g, TemperatureThreshold.SHUTDOWN, temp.child("GPU Shutdown Temp"));
            putThreshold(g, TemperatureThreshold.SLOWDOWN, temp.child("GPU Slowdown Temp"));
            putThreshold(g, TemperatureThreshold.GPU_MAX, temp.child("GPU Max Operating Temp"));
            putThreshold(g, TemperatureThreshold.MEM_MAX, temp.child("Memory Max Operating Temp"));
        }
        Node reasons = b.firstChild("Clocks Event Reasons", "Clocks Throttle Reasons");
        if (reasons != null) {
            provide(g, provides, GpuData.THERMAL);
            g.clocksEventReasons = clockEvents(reasons);
        }
    }

    /** The capture holds this kind of data, for this GPU among others. */
    private static void provide(CapturedGpu g, Set<GpuData> provides, GpuData kind) {
        provides.add(kind);
        g.holds.add(kind);
    }

    private void putThreshold(CapturedGpu g, TemperatureThreshold t, Node n) {
        Long v = values.number(n);
        if (v != null) {
            g.thresholds.put(t, v);
        }
    }

    private void ecc(CapturedGpu g, Node section, EccCounter counter) {
        if (section == null) {
            return;
        }
        Node single = section.child("Single Bit");
        Node dbl = section.child("Double Bit");
        if (single != null || dbl != null) {
            // before driver 5xx: per error type, then per location
            for (var e : Map.of(EccError.CORRECTED, single == null ? new Node("", null, 0) : single,
                    EccError.UNCORRECTED, dbl == null ? new Node("", null, 0) : dbl).entrySet()) {
                put(g, counter, e.getKey(), null, values.number(e.getValue().child("Total")));
                put(g, counter, e.getKey(), EccBlock.DRAM, values.number(e.getValue().child("Device Memory")));
            }
            return;
        }
        Long sramC = values.number(section.child("SRAM Correctable"));
        Long sramU = sum(values.number(section.child("SRAM Uncorrectable")), values.number(section.child("SRAM Uncorrectable Parity")),
                values.number(section.child("SRAM Uncorrectable SEC-DED")));
        Long dramC = values.number(section.child("DRAM Correctable"));
        Long dramU = values.number(section.child("DRAM Uncorrectable"));
        put(g, counter, EccError.CORRECTED, EccBlock.SRAM, sramC);
        put(g, counter, EccError.UNCORRECTED, EccBlock.SRAM, sramU);
        put(g, counter, EccError.CORRECTED, EccBlock.DRAM, dramC);
        put(g, counter, EccError.UNCORRECTED, EccBlock.DRAM, dramU);
        put(g, counter, EccError.CORRECTED, null, sum(sramC, dramC));
        put(g, counter, EccError.UNCORRECTED, null, sum(sramU, dramU));
    }

    private static void put(CapturedGpu g, EccCounter c, EccError t, EccBlock l, Long v) {
        if (v != null) {
            g.ecc.put(CapturedGpu.eccKey(c, t, l), v);
        }
    }

    private static Long sum(Long... values) {
        Long total = null;
        for (Long v : values) {
            if (v != null) {
                total = (total == null ? 0 : total) + v;
            }
        }
        return total;
    }

    private Long clockEvents(Node section) {
        long mask = 0;
        boolean any = false;
        List<Node> todo = new ArrayList<>(section.children);
        while (!todo.isEmpty()) {
            Node n = todo.remove(0);
            todo.addAll(0, n.children);   // HW Thermal / HW Power Brake sit indented under HW Slowdown
            Long bit = CLOCK_EVENTS.get(n.key);
            if (bit == null) {
                gaps.problem(n.line, "expected a clock event reason (" + String.join(", ", CLOCK_EVENTS.keySet()) + "), found '"
                        + SmiQValues.shorten(n.key) + "'");
                continue;
            }
            Boolean active = values.flag(n);
            if (active != null) {
                any = true;
                mask |= active ? bit : 0;
            }
        }
        return any ? mask : null;
    }
}
