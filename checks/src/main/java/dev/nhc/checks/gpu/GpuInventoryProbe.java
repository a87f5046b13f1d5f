package dev.nhc.checks.gpu;

import dev.nhc.checks.host.AllOf;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
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

    static final ParamSpec<Long> COUNT = ParamSpec.integer("count",
                    "how many GPUs this host must have; fewer is a fail, more a warn, and no NVML at all a fail")
            .check(n -> n < 0 ? "must be 0 or more" : null);

    static final ParamSpec<String> MODEL = ParamSpec.text("model",
                    "text every GPU's name must contain, case-insensitive (e.g. H100); another model is a fail")
            .check(m -> m.isBlank() ? "must not be empty (leave 'model' out to accept any GPU)" : null);

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.inventory",
                    "GPU count, model, UUID, PCI bus id, driver version and persistence mode, against the expected count and model",
                    Tags.PCIE, "one per GPU (GPU <index>, with its PCI bus id); GPUs, the node's GPUs as a whole: "
                            + "their count and driver, or why NVML cannot be used")
            .param(COUNT)
            .param(MODEL)
            .field("gpu_count", Unit.COUNT, "entity GPUs: GPUs NVML reports (0 when NVML cannot be used at all)")
            .field("driver_version", Unit.TEXT, "entity GPUs: NVIDIA driver version")
            .field("name", Unit.TEXT, "product name, e.g. NVIDIA H100 80GB HBM3")
            .field("uuid", Unit.TEXT, "GPU UUID")
            .field("persistence_mode", Unit.BOOLEAN, "whether persistence mode is on")
            .field("model_matches", Unit.BOOLEAN, "whether the GPU's name contains the check's model (reported when model is set)")
            .reportedFor(Entity.Kind.NODE, "gpu_count", "driver_version")
            .reportedFor(Entity.Kind.GPU, "name", "uuid", "persistence_mode", "model_matches")
            .optional("persistence_mode", "model_matches")
            .rule(DefaultRule.fail(AllOf.of("nvml_available", false, "gpu_count", "< {with.count}"), "{nvml_error}")
                    .remedy(Remedy.REBOOT))
            .rule(DefaultRule.fail(Map.of("gpu_count", "< {with.count}"),
                            "only {gpu_count} of the {with.count} GPUs found (a GPU fell off the bus or was not enumerated; see dmesg for Xid 79)")
                    .remedy(Remedy.REBOOT))
            .rule(DefaultRule.fail(Map.of("model_matches", false), "{gpu} is a {name}, expected {with.model}")
                    .remedy(Remedy.HARDWARE))
            .rule(DefaultRule.warn(Map.of("gpu_count", "> {with.count}"),
                    "{gpu_count} {gpu_count|GPU|GPUs} found, more than the {with.count} expected (is the check's count right for this host?)"))
            .rule(DefaultRule.warn(Map.of("persistence_mode", false),
                    "{gpu}: persistence mode is off, so the driver sets the GPU up again for every job; "
                            + "turn it on with 'systemctl enable --now nvidia-persistenced' (or 'nvidia-smi -pm 1')"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String model = MODEL.get(ctx.params());
        String wanted = model == null ? null : model.toLowerCase(Locale.ROOT);
        GpuSource source = GpuSources.forProbe(ctx);
        ProbeResult perGpu = GpuScan.run(ctx, source, GpuData.INVENTORY, (gpu, out) -> {
            String name = gpu.name();
            out.put("name", name);
            out.put("uuid", gpu.uuid());
            out.put("persistence_mode", gpu.persistenceMode());
            if (wanted != null && name != null) {
                out.put("model_matches", name.toLowerCase(Locale.ROOT).contains(wanted));
            }
        });
        if (perGpu.skipped() != null) {
            return perGpu;
        }
        List<Observation> read = perGpu.observations();
        if (read.size() == 1 && read.get(0).entity().equals(GpuScan.GPUS) && read.get(0).readable()) {
            // NVML cannot be used (GpuScan observed why; asking again would wait for a hung init twice):
            // no GPU is usable, which is what a count compares.
            return ProbeResult.of(read.get(0).with(Map.of("gpu_count", 0L)));
        }
        Observation gpus;
        try {
            // A capture cut off after "Attached GPUs: 8" shows fewer: the count is what nvidia-smi announced,
            // and not known at all when the capture lacks GPUs without saying how many.
            Integer announced = source.announcedCount();
            boolean partial = read.stream().anyMatch(o -> !o.readable() && o.entity().equals(GpuScan.GPUS));
            Long count = announced != null ? Long.valueOf(announced)
                    : partial ? null : Long.valueOf(GpuScan.devices(source, GpuData.INVENTORY).size());
            gpus = Observation.of(GpuScan.GPUS).put("gpu_count", count).put("driver_version", source.driverVersion()).build();
        } catch (GpuSourceException e) {
            // GpuScan's opening succeeded and an opened session stays open; said the same way should that change
            return ProbeResult.of(GpuScan.unavailable(e).put("gpu_count", 0L).build());
        }
        List<Observation> all = new ArrayList<>();
        if (!gpus.fields().isEmpty()) {
            all.add(gpus); // nothing known about the GPUs as a whole: the capture's gap already says so
        }
        all.addAll(read);
        return new ProbeResult(all, null);
    }
}
