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
 * {@code gpu.inventory}: how many GPUs the drivers see, and what they are, whoever made them. A
 * GPU missing from the count is the most common GPU fault (fallen off the bus, or not enumerated
 * after a reboot). On a host without GPUs of any vendor the check is skipped, unless it expects a
 * count: then "none here" is the fault.
 */
public final class GpuInventoryProbe implements Probe {

    static final ParamSpec<Long> COUNT = ParamSpec.integer("count",
                    "how many GPUs this host must have; fewer is a fail, more a warn, and none (no vendor's GPUs, or their library unusable) a fail")
            .check(n -> n < 0 ? "must be 0 or more" : null);

    static final ParamSpec<String> MODEL = ParamSpec.text("model",
                    "text every GPU's name must contain, case-insensitive (e.g. H100); another model is a fail")
            .check(m -> m.isBlank() ? "must not be empty (leave 'model' out to accept any GPU)" : null);

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.inventory",
                    "GPU count, vendor, model, UUID, PCI bus id, driver and firmware versions and persistence mode, "
                            + "against the expected count and model",
                    Tags.PCIE, "one per GPU (GPU <index>, with its PCI bus id); GPUs, the node's GPUs as a whole: "
                            + "their count, vendor and driver, or why their library cannot be used", GpuSpecs.ALL_VENDORS)
            .param(COUNT)
            .param(MODEL)
            .field("gpu_count", Unit.COUNT, "entity GPUs: GPUs the libraries report (0 when none can be used)")
            .field("gpu_vendors", Unit.TEXT, "entity GPUs: who made the GPUs found: NVIDIA, AMD")
            .field("driver_version", Unit.TEXT, "entity GPUs: the GPU driver's version (NVIDIA's, or amdgpu's)")
            .field("name", Unit.TEXT, "product name, e.g. NVIDIA H100 80GB HBM3, AMD Instinct MI300X")
            .field("uuid", Unit.TEXT, "GPU UUID")
            .field("firmware_version", Unit.TEXT, "the GPU's firmware (VBIOS) version, where the library reads it (AMD)")
            .field("persistence_mode", Unit.BOOLEAN, "NVIDIA: whether persistence mode is on")
            .field("model_matches", Unit.BOOLEAN, "whether the GPU's name contains the check's model (reported when model is set)")
            .reportedFor(Entity.Kind.NODE, "gpu_count", "gpu_vendors", "driver_version")
            .reportedFor(Entity.Kind.GPU, "name", "uuid", "firmware_version", "persistence_mode", "model_matches")
            .optional("firmware_version", "persistence_mode", "model_matches")
            .rule(DefaultRule.fail(AllOf.of("gpu_library_available", false, "gpu_count", "< {with.count}"), "{gpu_error}")
                    .remedy(Remedy.REBOOT))
            .rule(DefaultRule.fail(AllOf.of("gpu_count", "< {with.count}", "gpu_vendors", "AMD"),
                            "only {gpu_count} of the {with.count} GPUs found (a GPU fell off the bus or was not enumerated; "
                                    + "see dmesg for amdgpu errors)")
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
        GpuHost host = GpuSources.forProbe(ctx, SPEC);
        Long count = COUNT.get(ctx.params());
        if (host.nothingHere() && count != null && count > 0) {
            // No vendor's GPUs at all where the config expects some: that is the finding, in the words of each library.
            return ProbeResult.of(Observation.of(GpuScan.GPUS).put("gpu_count", 0L).put(GpuScan.LIBRARY_AVAILABLE, false)
                    .put(GpuScan.GPU_ERROR, "none of the " + count + " GPUs found: " + host.whyNothing()).build());
        }
        ProbeResult perGpu = GpuScan.run(ctx, host, GpuData.INVENTORY, (gpu, out) -> {
            String name = gpu.name();
            out.put("name", name);
            out.put("uuid", gpu.uuid());
            out.put("firmware_version", gpu.firmwareVersion());
            out.put("persistence_mode", gpu.persistenceMode());
            if (wanted != null && name != null) {
                out.put("model_matches", name.toLowerCase(Locale.ROOT).contains(wanted));
            }
        });
        if (perGpu.skipped() != null) {
            return perGpu;
        }
        Observation gpus = Observation.of(GpuScan.GPUS).build();
        List<Observation> all = new ArrayList<>();
        boolean partial = false;
        for (Observation o : perGpu.observations()) {
            if (o.entity().equals(GpuScan.GPUS) && o.readable()) {
                gpus = o;    // a vendor's library cannot be used: why, said once
            } else {
                partial |= o.entity().equals(GpuScan.GPUS);    // a capture's gap about the GPUs as a whole
                all.add(o);
            }
        }
        // A capture cut off after "Attached GPUs: 8" shows fewer: the count is what nvidia-smi announced,
        // and not known at all when the capture lacks GPUs without saying how many.
        Long found = 0L;
        for (GpuHost.Found f : host.present()) {
            Integer announced = f.source().announcedCount();
            if (announced == null && partial) {
                found = null;
                break;
            }
            found += announced != null ? announced : GpuScan.devices(f.devices(), GpuData.INVENTORY).size();
        }
        String driver;
        try {
            driver = host.driverVersion();
        } catch (GpuSourceException e) {
            // GpuHost's opening succeeded and an opened session stays open; said the same way should that change
            return ProbeResult.of(GpuScan.unavailable(List.of(new GpuHost.Failed(host.present().get(0).source().vendor(), e)))
                    .put("gpu_count", 0L).build());
        }
        if (found != null || driver != null || !gpus.fields().isEmpty()) {
            // else nothing is known about the GPUs as a whole: the capture's gap already says so
            all.add(0, gpus.with(Observation.of(GpuScan.GPUS).put("gpu_count", found).put("gpu_vendors", host.vendors())
                    .put("driver_version", driver).build().fields()));
        }
        return new ProbeResult(all, null);
    }
}
