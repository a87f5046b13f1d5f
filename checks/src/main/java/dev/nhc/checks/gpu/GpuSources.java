package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.amd.AmdSmiBackend;
import dev.nhc.checks.gpu.nvml.NvmlBackend;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeSpec;

import java.util.List;

/**
 * Picks what a GPU probe reads: the replayed capture the command line put into the context, else
 * the live libraries of the vendors the probe supports. This list is the one place that names
 * every vendor's library.
 */
public final class GpuSources {
    private static final List<GpuBackend> BACKENDS = List.of(new NvmlBackend(), new AmdSmiBackend());

    private GpuSources() {
    }

    /** The vendors' GPUs this probe judges; only here are the libraries (and with them JNA) touched. */
    public static GpuHost forProbe(ProbeContext ctx, ProbeSpec spec) {
        var vendors = GpuVendor.supportedBy(spec);
        var replay = ctx.service(GpuSource.class);
        if (replay.isPresent()) {
            return GpuHost.replay(replay.get(), vendors);
        }
        return GpuHost.open(ctx, vendors, BACKENDS);
    }

    /** The backend of one vendor (the daemon's event watchers open the same libraries). */
    public static GpuBackend backend(GpuVendor vendor) {
        for (GpuBackend b : BACKENDS) {
            if (b.vendor() == vendor) {
                return b;
            }
        }
        throw new IllegalArgumentException("no backend for " + vendor);
    }
}
