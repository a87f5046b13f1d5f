package dev.nhc.checks.gpu;

import dev.nhc.probe.ProbeContext;

/**
 * One vendor's live management library as the GPU probes use it: NVML for NVIDIA, AMD SMI for
 * AMD. {@link GpuSources} lists them; a vendor is added by its package and one line there.
 */
public interface GpuBackend {

    GpuVendor vendor();

    /** Whether the config names this vendor's library; if not, a host whose PCI bus shows none of its GPUs is not asked to load it. */
    boolean configured(ProbeContext ctx);

    /**
     * This probe's view of the vendor's GPUs, under the probe's deadline. Loading and opening the
     * library start here and are shared by the probes of a run; waiting for them happens in the
     * source's calls, which say why the vendor's GPUs cannot be read ({@link GpuSourceException}).
     */
    GpuSource open(ProbeContext ctx);
}
