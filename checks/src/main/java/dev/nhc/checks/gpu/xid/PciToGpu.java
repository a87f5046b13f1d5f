package dev.nhc.checks.gpu.xid;

import java.util.Optional;

/**
 * Maps a PCI bus id, as the kernel log names a GPU, to the GPU's NVML index. The GPU side (NVML
 * inventory) offers it through {@code ProbeContext.service(PciToGpu.class)}; without it gpu.xid
 * names GPUs by PCI address ("GPU at PCI 0000:3b:00.0").
 */
@FunctionalInterface
public interface PciToGpu {

    /** {@code busId}: "0000:3b:00" (domain:bus:device, lower case, no function); see {@link XidEvent#normalizePci}. */
    Optional<Integer> gpuIndex(String busId);
}
