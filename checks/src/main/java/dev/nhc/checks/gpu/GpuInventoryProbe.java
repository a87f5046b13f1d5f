package dev.nhc.checks.gpu;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code gpu.inventory}: how many GPUs the driver sees, and what they are. A GPU missing from the
 * count is the most common GPU fault (fallen off the bus, or not enumerated after a reboot).
 */
public final class GpuInventoryProbe implements Probe {

    private static final ProbeSpec SPEC = ProbeSpec.builder("gpu.inventory",
                    "GPU count, model, UUID, PCI bus id, driver version and persistence mode, against the expected count and model")
            .entities("one per GPU (GPU <index>); GPUs for the count")
            .param(ParamSpec.optional("count", ParamType.INTEGER, null, "how many GPUs this host must have; fewer is a fail"))
            .param(ParamSpec.optional("model", ParamType.STRING, null,
                    "text every GPU's name must contain, case-insensitive (e.g. H100)"))
            .field("gpu_count", Unit.COUNT, "GPUs the driver reports (entity GPUs)")
            .field("driver_version", Unit.TEXT, "NVIDIA driver version")
            .field("gpu", Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
            .field("pci_bus_id", Unit.TEXT, "PCI bus id, e.g. 0000:3b:00.0")
            .field("name", Unit.TEXT, "product name, e.g. NVIDIA H100 80GB HBM3")
            .field("uuid", Unit.TEXT, "GPU UUID")
            .field("persistence_mode", Unit.BOOLEAN, "whether persistence mode is on")
            .rule(DefaultRule.warn(Map.of("persistence_mode", false),
                    "{gpu}: persistence mode is off (the driver reinitialises the GPU for every job; run nvidia-persistenced)"))
            .timeoutFails()
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Long expected = ctx.params().integer("count");
        String model = ctx.params().string("model");
        GpuSource source = GpuSources.forProbe(ctx);
        ProbeResult perGpu = GpuScan.run(ctx, source, GpuData.INVENTORY, expected != null && expected > 0, (gpu, out) -> {
            String name = gpu.name();
            out.put("name", name);
            out.put("uuid", gpu.uuid());
            out.put("persistence_mode", gpu.persistenceMode());
            if (model != null && name != null && !name.toLowerCase(Locale.ROOT).contains(model.toLowerCase(Locale.ROOT))) {
                out.finding(Severity.FAIL, gpu.label() + " is a " + name + ", expected " + model, Remedy.HARDWARE, null);
            }
        });
        if (perGpu.skipped() != null) {
            return perGpu;
        }
        int count;
        String driver;
        try {
            count = source.devices().size();
            driver = source.driverVersion();
        } catch (GpuSourceException e) {
            return perGpu;  // no NVML at all: already one node-level finding, nothing to count
        }
        List<Observation> observations = new ArrayList<>(perGpu.observations());
        List<Finding> findings = new ArrayList<>(perGpu.findings());
        observations.add(0, Observation.of(GpuScan.NODE_ENTITY).put("gpu_count", (long) count).put("driver_version", driver).build());
        if (expected != null && count < expected) {
            findings.add(new Finding(null, GpuScan.NODE_ENTITY, Severity.FAIL, "found " + count + " GPU" + (count == 1 ? "" : "s")
                    + ", expected " + expected + " (a GPU fell off the bus or was not enumerated; see dmesg for Xid 79)",
                    Remedy.REBOOT, null, Map.of("gpu_count", (long) count, "expected", expected)));
        } else if (expected != null && count > expected) {
            findings.add(new Finding(null, GpuScan.NODE_ENTITY, Severity.WARN, "found " + count + " GPUs, expected only " + expected
                    + " (is the config's count right for this host?)", Remedy.NONE, null, Map.of("gpu_count", (long) count, "expected", expected)));
        }
        return new ProbeResult(observations, findings, null);
    }
}
