package dev.nhc.checks.gpu;

import dev.nhc.model.Entity;
import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.List;
import java.util.Map;

/**
 * What every GPU probe's spec has in common: its tags, its entities, and the fields and default
 * rules for what {@link GpuScan} observes around each reading — a GPU that is lost, a GPU whose
 * call hangs, values NVML refuses, and NVML that cannot be used at all. The probe adds its own
 * params, fields and rules after these, so a lost GPU's FAIL comes before the probe's own.
 */
public final class GpuSpecs {
    static final String ENTITIES = "one per GPU (GPU <index>, with its PCI bus id); GPUs, the node's GPUs as a whole, when NVML cannot be used";

    private GpuSpecs() {
    }

    /**
     * @param healthSystem the DCGM health system the probe's findings belong to ({@link Tags#MEMORY}, {@link Tags#PCIE}…)
     */
    public static ProbeSpec.Builder builder(String name, String description, String healthSystem, String entities) {
        return ProbeSpec.builder(name, description)
                .tags(Tags.GPU, Tags.NVML, healthSystem)
                .entities(Entity.Kind.GPU, entities)
                .field(GpuScan.GPU, Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
                .field(GpuScan.PCI_BUS_ID, Unit.TEXT, "PCI bus id, e.g. 0000:3b:00.0")
                .field(GpuScan.LOST, Unit.BOOLEAN, "true when NVML says the GPU is lost (GPU_IS_LOST or RESET_REQUIRED: "
                        + "fallen off the bus, gone until a reset or reboot); reported only then")
                .field(GpuScan.RESPONDING, Unit.BOOLEAN, "false when an NVML call to the GPU did not return within its limit "
                        + "(a hung GPU), or for entity GPUs when opening NVML did not (a hung driver); reported only then")
                .field(GpuScan.NVML_CALL, Unit.TEXT, "the NVML function that found the GPU lost or blocked (or blocked opening NVML)")
                .field(GpuScan.NVML_ERROR, Unit.TEXT, "what NVML could not do, naming the GPU and the call; "
                        + "for entity GPUs, why NVML cannot be used")
                .field(GpuScan.UNREADABLE_VALUES, Unit.COUNT, "values NVML refused for another reason (no permission, "
                        + "corrupted infoROM…); reported when there are any")
                .field(GpuScan.NVML_AVAILABLE, Unit.BOOLEAN, "entity GPUs: false when NVML cannot be used at all "
                        + "(library missing, driver not loaded, initialisation hung); reported only then")
                .reportedFor(Entity.Kind.GPU, GpuScan.GPU, GpuScan.PCI_BUS_ID)
                .optional(GpuScan.LOST, GpuScan.RESPONDING, GpuScan.NVML_CALL, GpuScan.NVML_ERROR, GpuScan.UNREADABLE_VALUES,
                        GpuScan.NVML_AVAILABLE)
                .rule(DefaultRule.fail(Map.of(GpuScan.LOST, true), "{nvml_error}")
                        .remedy(Remedy.REBOOT).slurmState(SlurmState.FAIL))
                .rule(DefaultRule.fail(Map.of(GpuScan.RESPONDING, false), "{nvml_error}")
                        .remedy(Remedy.REBOOT))
                // Never replaced by a config's fail:/warn:, so a lost or hung GPU is at worst
                // "cannot decide", never a pass, whatever rules a site writes.
                .rule(DefaultRule.unknown(List.of(Map.of(GpuScan.NVML_AVAILABLE, false), Map.of(GpuScan.LOST, true),
                        Map.of(GpuScan.RESPONDING, false), Map.of(GpuScan.UNREADABLE_VALUES, "> 0")), "{nvml_error}"))
                .timeoutFails();
    }

    static ProbeSpec.Builder builder(String name, String description, String healthSystem) {
        return builder(name, description, healthSystem, ENTITIES);
    }
}
