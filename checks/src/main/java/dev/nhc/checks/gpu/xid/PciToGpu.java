package dev.nhc.checks.gpu.xid;

import java.util.Optional;

/**
 * Maps a PCI bus id, as the kernel log names a GPU, to the GPU's NVML index. A replay offers it
 * through {@code ProbeContext.service(PciToGpu.class)} (from its nvidia-smi capture); without it
 * gpu.xid asks the GPU source itself ({@link GpuNames}), and names a GPU by PCI address ("GPU at
 * PCI 0000:3b:00.0") only when no source knows it.
 */
@FunctionalInterface
public interface PciToGpu {

    /** {@code busId}: "0000:3b:00" (domain:bus:device, lower case, no function); see {@link XidEvent#normalizePci}. */
    Optional<Integer> gpuIndex(String busId);
}
