package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed capture as the GPU probes' source, for {@code nhc replay}: put it into the probes'
 * context as {@code GpuSource} and every GPU probe reads the capture instead of NVML; a probe
 * whose data the capture lacks is skipped, and one whose data the capture should hold and does
 * not (cut off, unreadable) reports that as "could not read". An empty capture ({@link #none()})
 * makes every GPU probe skip, so a replay never falls through to the live GPUs.
 */
public final class CaptureGpuSource implements GpuSource {
    private final GpuCapture capture;

    public CaptureGpuSource(GpuCapture capture) {
        this.capture = capture;
    }

    public static CaptureGpuSource none() {
        return new CaptureGpuSource(new GpuCapture("the replayed captures", null, List.of(), java.util.EnumSet.noneOf(GpuData.class)));
    }

    /** nvidia-smi captures are of NVIDIA's GPUs. */
    @Override
    public GpuVendor vendor() {
        return GpuVendor.NVIDIA;
    }

    @Override
    public String description() {
        return "the capture " + capture.source();
    }

    @Override
    public boolean provides(GpuData kind) {
        return capture.provides().contains(kind);
    }

    @Override
    public String driverVersion() {
        return capture.driverVersion();
    }

    /** The GPUs the capture shows; a capture of nvidia-smi that could not use NVML at all says why, as NVML's opening would. */
    @Override
    public List<GpuDevice> devices() throws GpuSourceException {
        if (capture.unavailable() != null) {
            throw new GpuSourceException(capture.unavailable());
        }
        return List.copyOf(capture.gpus());
    }

    @Override
    public List<Observation> gaps(GpuData kind) {
        List<Observation> out = new ArrayList<>();
        for (GpuCapture.Gap g : capture.gaps()) {
            if (g.kinds().contains(kind)) {
                Entity entity = g.index() == null ? GpuScan.GPUS : GpuScan.entity(g.index(), g.pciBusId());
                out.add(Observation.unreadable(entity, "the capture " + capture.source() + " is partial: " + g.text()));
            }
        }
        return out;
    }

    @Override
    public Integer announcedCount() {
        return capture.announced();
    }
}
