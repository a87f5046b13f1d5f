package dev.nhc.checks.gpu;

import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;

/**
 * {@code gpu.links}: each GPU's GPU-to-GPU links, whoever made it (NVIDIA's NVLink, AMD's XGMI):
 * links down, fewer up than expected, error counters that grow, and AMD's XGMI error status
 * ({@link GpuLinks}). One config judges the links of an H100 and of an MI300X node.
 */
public final class GpuLinksProbe implements Probe {

    private static final ProbeSpec SPEC = GpuLinks.anySpec();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        CounterHistory history = new CounterHistory(ctx.state(), ctx.clock().instant());
        return GpuScan.run(ctx, SPEC, GpuData.NVLINK, (gpu, out) -> {
            GpuLinks.readVendorFields(gpu, out);
            GpuLinks.read(gpu, out, GpuLinks.ANY, history);
        });
    }
}
