package dev.nhc.checks.gpu;

import dev.nhc.model.Entity;
import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What every GPU probe's spec has in common: its tags (among them the vendors it supports, see
 * {@link GpuVendor}), its entities, and the fields and default rules for what {@link GpuScan}
 * observes around each reading — a GPU that is lost, a GPU whose call hangs, values the library
 * refuses, and a library that cannot be used at all. The probe adds its own params, fields and
 * rules after these, so a lost GPU's FAIL comes before the probe's own.
 */
public final class GpuSpecs {
    static final String ENTITIES = "one per GPU (GPU <index>, with its PCI bus id); GPUs, the node's GPUs as a whole, "
            + "when a vendor's library cannot be used";

    /** Every vendor nhc reads. */
    public static final Set<GpuVendor> ALL_VENDORS = EnumSet.allOf(GpuVendor.class);

    private GpuSpecs() {
    }

    /**
     * @param healthSystem the DCGM health system the probe's findings belong to ({@link Tags#MEMORY}, {@link Tags#PCIE}…)
     * @param vendors      the vendors whose GPUs the probe reads; on a host with none of them it is skipped
     */
    public static ProbeSpec.Builder builder(String name, String description, String healthSystem, String entities, Set<GpuVendor> vendors) {
        ProbeSpec.Builder b = ProbeSpec.builder(name, description).tags(Tags.GPU);
        for (GpuVendor v : vendors) {
            b.tags(v.tag());
        }
        return b.tags(healthSystem)
                .entities(Entity.Kind.GPU, entities)
                .field(GpuScan.GPU, Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
                .field(GpuScan.VENDOR, Unit.TEXT, "who made the GPU: NVIDIA or AMD")
                .field(GpuScan.PCI_BUS_ID, Unit.TEXT, "PCI bus id, e.g. 0000:3b:00.0")
                .field(GpuScan.LOST, Unit.BOOLEAN, "true when the library says the GPU is lost (NVIDIA: GPU_IS_LOST or RESET_REQUIRED; "
                        + "AMD: the device is not found): fallen off the bus, gone until a reset or reboot; reported only then")
                .field(GpuScan.RESPONDING, Unit.BOOLEAN, "false when a library call to the GPU did not return within its limit "
                        + "(a hung GPU), or for entity GPUs when opening the library did not (a hung driver); reported only then")
                .field(GpuScan.GPU_CALL, Unit.TEXT, "the library function that found the GPU lost or blocked (or blocked opening the library)")
                .field(GpuScan.GPU_ERROR, Unit.TEXT, "what the library could not do, naming the GPU and the call; "
                        + "for entity GPUs, why the library cannot be used")
                .field(GpuScan.UNREADABLE_VALUES, Unit.COUNT, "values the library refused for another reason (no permission, "
                        + "corrupted infoROM…); reported when there are any")
                .field(GpuScan.LIBRARY_AVAILABLE, Unit.BOOLEAN, "entity GPUs: false when a vendor's library cannot be used at all "
                        + "(library missing, driver not loaded, initialisation hung) although its GPUs are here; reported only then")
                .field(GpuScan.NVML_CALL, Unit.TEXT, "NVIDIA: the same as gpu_call (NVML's name for it)")
                .field(GpuScan.NVML_ERROR, Unit.TEXT, "NVIDIA: the same as gpu_error (NVML's name for it)")
                .field(GpuScan.NVML_AVAILABLE, Unit.BOOLEAN, "NVIDIA: the same as gpu_library_available (NVML's name for it)")
                .reportedFor(Entity.Kind.GPU, GpuScan.GPU, GpuScan.VENDOR, GpuScan.PCI_BUS_ID)
                .optional(GpuScan.LOST, GpuScan.RESPONDING, GpuScan.GPU_CALL, GpuScan.GPU_ERROR, GpuScan.UNREADABLE_VALUES,
                        GpuScan.LIBRARY_AVAILABLE, GpuScan.NVML_CALL, GpuScan.NVML_ERROR, GpuScan.NVML_AVAILABLE)
                .rule(DefaultRule.fail(Map.of(GpuScan.LOST, true), "{gpu_error}")
                        .remedy(Remedy.REBOOT).slurmState(SlurmState.FAIL))
                .rule(DefaultRule.fail(Map.of(GpuScan.RESPONDING, false), "{gpu_error}")
                        .remedy(Remedy.REBOOT))
                // Never replaced by a config's fail:/warn:, so a lost or hung GPU is at worst
                // "cannot decide", never a pass, whatever rules a site writes.
                .rule(DefaultRule.unknown(List.of(Map.of(GpuScan.LIBRARY_AVAILABLE, false), Map.of(GpuScan.LOST, true),
                        Map.of(GpuScan.RESPONDING, false), Map.of(GpuScan.UNREADABLE_VALUES, "> 0")), "{gpu_error}"))
                .timeoutFails();
    }

    static ProbeSpec.Builder builder(String name, String description, String healthSystem) {
        return builder(name, description, healthSystem, ENTITIES, ALL_VENDORS);
    }
}
