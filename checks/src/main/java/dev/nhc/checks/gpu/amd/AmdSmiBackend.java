package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuBackend;
import dev.nhc.checks.gpu.GpuSection;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.probe.ProbeContext;

/** AMD's GPUs through AMD SMI: the session for {@code gpu.amd_smi_library}, seen with the probe's deadline. */
public final class AmdSmiBackend implements GpuBackend {

    @Override
    public GpuVendor vendor() {
        return GpuVendor.AMD;
    }

    @Override
    public boolean configured(ProbeContext ctx) {
        return GpuSection.amdSmiLibrary(ctx) != null;
    }

    @Override
    public GpuSource open(ProbeContext ctx) {
        return AmdSmiSessions.get(GpuSection.amdSmiLibrary(ctx)).view(ctx.remaining(), ctx.sys("/sys/bus/pci/devices"));
    }
}
