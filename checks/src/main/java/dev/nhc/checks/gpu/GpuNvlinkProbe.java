package dev.nhc.checks.gpu;

import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;

/**
 * {@code gpu.nvlink}: NVIDIA's NVLinks, judged like DCGM's NVLink watch ({@link GpuLinks}), with
 * the {@code nvlink_*} fields configs have used since before nhc read other vendors' links.
 * {@code gpu.links} judges the same for every vendor.
 */
public final class GpuNvlinkProbe implements Probe {

    private static final ProbeSpec SPEC = GpuLinks.nvlinkSpec();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        CounterHistory history = new CounterHistory(ctx.state(), ctx.clock().instant());
        return GpuScan.run(ctx, SPEC, GpuData.NVLINK, (gpu, out) -> GpuLinks.read(gpu, out, GpuLinks.NVLINK, history));
    }
}
