package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;

import java.util.List;

/**
 * A parsed capture as the GPU probes' source, for {@code nhc replay}: put it into the probes'
 * context as {@code GpuSource} and every GPU probe reads the capture instead of NVML; a probe
 * whose data the capture lacks is skipped. An empty capture ({@link #none()}) makes every GPU
 * probe skip, so a replay never falls through to the live GPUs.
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

    @Override
    public List<GpuDevice> devices() {
        return List.copyOf(capture.gpus());
    }
}
