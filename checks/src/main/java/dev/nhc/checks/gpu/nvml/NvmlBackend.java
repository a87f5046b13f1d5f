package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.GpuBackend;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.probe.ProbeContext;

/** NVIDIA's GPUs through NVML: the session for {@code settings.nvml_library}, seen with the probe's deadline. */
public final class NvmlBackend implements GpuBackend {

    @Override
    public GpuVendor vendor() {
        return GpuVendor.NVIDIA;
    }

    @Override
    public boolean configured(ProbeContext ctx) {
        return ctx.setting("nvml_library") != null;
    }

    @Override
    public GpuSource open(ProbeContext ctx) {
        Object library = ctx.setting("nvml_library");
        return NvmlSessions.get(library == null ? null : library.toString()).view(ctx.remaining());
    }
}
