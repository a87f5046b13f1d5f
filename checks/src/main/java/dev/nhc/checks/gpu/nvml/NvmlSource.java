package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.calls.Deadline;

import java.util.ArrayList;
import java.util.List;

/** Live NVML as one probe sees it: the shared session, with the probe's own deadline on every call. */
public final class NvmlSource implements GpuSource {
    private final NvmlSession session;
    private final Deadline deadline;

    NvmlSource(NvmlSession session, Deadline deadline) {
        this.session = session;
        this.deadline = deadline;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.NVIDIA;
    }

    @Override
    public String description() {
        return "NVML (" + session.library() + ")";
    }

    @Override
    public boolean provides(GpuData kind) {
        return true;
    }

    @Override
    public String driverVersion() throws GpuSourceException {
        return session.awaitOpen(deadline).driverVersion();
    }

    @Override
    public List<GpuDevice> devices() throws GpuSourceException {
        NvmlSession.Opened o = session.awaitOpen(deadline);
        List<GpuDevice> out = new ArrayList<>();
        for (NvmlGpu g : session.gpus(o)) {
            out.add(new NvmlDevice(g, deadline));
        }
        return out;
    }
}
