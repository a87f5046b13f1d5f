package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.Entity;
import dev.nhc.probe.ProbeContext;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Names the GPU a kernel log line gives by PCI address the way the other GPU probes name it:
 * {@code Entity.gpu(index, pci)}. The index comes from a {@link PciToGpu} the command line
 * provides (a replay), else from the GPU source the GPU probes read (a replayed capture, else
 * live NVML). NVML is asked only when there is a GPU to name and the NVIDIA driver is loaded (or
 * {@code settings.nvml_library} names a library), and within a short budget of the
 * check's time: a hung NVML must not hang the XID check, which then names the GPU by address
 * ({@code Entity.gpuAtPci}), as it does on a host without NVML.
 */
final class GpuNames {
    /** The most of the check's remaining time that naming may take; the rest is for reading the log. */
    private static final Duration BUDGET = Duration.ofSeconds(2);
    /** Present while the NVIDIA kernel module is loaded. */
    private static final String DRIVER = "/proc/driver/nvidia";

    private final ProbeContext ctx;
    private Map<String, Integer> byPci;

    GpuNames(ProbeContext ctx) {
        this.ctx = ctx;
    }

    /** The entity of a GPU known by its short PCI address ("0000:3b:00"), NVML's index, or both. */
    Entity gpu(String pci, Integer index) {
        String busId = pci == null ? null : PciBusId.normalize(pci + ".0");
        Integer idx = index;
        if (idx == null && pci != null) {
            idx = indexOf(pci);
        }
        if (idx != null) {
            return Entity.gpu(idx, busId);
        }
        if (busId != null) {
            return Entity.gpuAtPci(busId);
        }
        return new Entity(Entity.Kind.GPU, "unknown", "a GPU NVML could not name", null);
    }

    /**
     * The event with its GPU's PCI address when NVML gave only the index: the log names GPUs by
     * address, and one GPU's XID must be one key whichever source told it.
     */
    XidEvent withPci(XidEvent e) {
        if (e.pci() != null || e.gpu() == null || ctx.service(PciToGpu.class).isPresent()) {
            return e;
        }
        if (byPci == null) {
            byPci = live();
        }
        for (Map.Entry<String, Integer> m : byPci.entrySet()) {
            if (m.getValue().equals(e.gpu())) {
                return new XidEvent(e.kind(), m.getKey(), e.gpu(), e.code(), e.fatal(), e.recoveryAction(), e.text(), e.when());
            }
        }
        return e;
    }

    /** An NVSwitch by its PCI address: NVML does not list them. */
    static Entity nvswitch(String pci) {
        String busId = PciBusId.normalize(pci + ".0");
        return new Entity(Entity.Kind.NVSWITCH, busId, "NVSwitch at PCI " + busId, busId);
    }

    private Integer indexOf(String pci) {
        Optional<PciToGpu> given = ctx.service(PciToGpu.class);
        if (given.isPresent()) {
            return given.get().gpuIndex(pci).orElse(null);
        }
        if (byPci == null) {
            byPci = live();
        }
        return byPci.get(pci);
    }

    /** PCI address → index from the GPU source; empty when there is none or it does not answer in time. */
    private Map<String, Integer> live() {
        Map<String, Integer> out = new HashMap<>();
        GpuSource source = ctx.service(GpuSource.class).orElse(null);
        if (source == null) {
            Object library = ctx.setting("nvml_library");
            if (library == null && !Files.isDirectory(ctx.sys(DRIVER))) {
                return out; // no NVIDIA driver loaded: loading JNA and failing to open NVML would only cost time
            }
            Duration budget = ctx.remaining().dividedBy(4);
            if (budget.compareTo(BUDGET) > 0) {
                budget = BUDGET;
            }
            source = NvmlSessions.get(library == null ? null : library.toString()).view(budget);
        }
        try {
            for (GpuDevice d : source.devices()) {
                String bus = d.pciBusId();
                if (bus != null) {
                    out.put(XidEvent.normalizePci(bus), d.index());
                }
            }
        } catch (GpuSourceException | RuntimeException e) {
            // No NVML (no driver, a host without GPUs, a replay without a capture): GPUs are named by address.
        }
        return out;
    }
}
