package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.calls.Deadline;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Live AMD SMI as one probe sees it: the shared session, with the probe's own deadline on every call. */
public final class AmdSmiSource implements GpuSource {
    private final AmdSmiSession session;
    private final Deadline deadline;
    private final Path pciDevices;

    AmdSmiSource(AmdSmiSession session, Deadline deadline, Path pciDevices) {
        this.session = session;
        this.deadline = deadline;
        this.pciDevices = pciDevices;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.AMD;
    }

    @Override
    public String description() {
        return session.description();
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
        AmdSmiSession.Opened o = session.awaitOpen(deadline);
        List<GpuDevice> out = new ArrayList<>();
        for (AmdSmiGpu g : session.gpus(o)) {
            out.add(new AmdSmiDevice(g, deadline, pciDevices));
        }
        return out;
    }
}
