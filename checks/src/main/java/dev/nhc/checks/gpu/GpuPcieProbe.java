package dev.nhc.checks.gpu;

import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.Map;

/**
 * {@code gpu.pcie}: the GPU's PCIe link against what it can do, and how fast its replay counter
 * grows. A replay is a retransmitted packet; DCGM warns when they exceed a per-lane rate that
 * doubles with each generation (PCI_REPLAY_RATE).
 */
public final class GpuPcieProbe implements Probe {

    /** DCGM's replays per minute per lane, by PCIe generation 1..6. */
    private static final double[] REPLAYS_PER_LANE_PER_MIN = {0.15, 0.3, 0.48, 0.96, 1.92, 3.84};

    private static final ProbeSpec SPEC = ProbeSpec.builder("gpu.pcie",
                    "PCIe link generation and width against the maximum, and replay counter growth against DCGM's per-lane limits")
            .entities("one per GPU (GPU <index>)")
            .field("gpu", Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
            .field("pci_bus_id", Unit.TEXT, "PCI bus id")
            .field("pcie_gen", Unit.COUNT, "current link generation")
            .field("pcie_gen_max", Unit.COUNT, "maximum link generation of the GPU")
            .field("pcie_width", Unit.COUNT, "current link width (lanes)")
            .field("pcie_width_max", Unit.COUNT, "maximum link width")
            .field("pcie_gen_degraded", Unit.BOOLEAN, "the link runs below its maximum generation")
            .field("pcie_width_degraded", Unit.BOOLEAN, "the link runs with fewer lanes than its maximum")
            .field("pcie_replays", Unit.COUNT, "replay counter")
            .field("pcie_replays_per_min", Unit.PER_MINUTE, "replay counter growth since the previous run")
            .field("pcie_replay_limit_per_min", Unit.PER_MINUTE, "DCGM's limit for this link: ceil(per-lane rate × lanes)")
            .field("pcie_replay_rate_exceeded", Unit.BOOLEAN, "replays grow faster than the limit")
            .rule(DefaultRule.warn(Map.of("pcie_width_degraded", true),
                    "{gpu}: PCIe link runs at x{pcie_width} of x{pcie_width_max}"))
            .rule(DefaultRule.warn(Map.of("pcie_gen_degraded", true),
                    "{gpu}: PCIe link runs at Gen{pcie_gen} of Gen{pcie_gen_max}"))
            .rule(DefaultRule.warn(Map.of("pcie_replay_rate_exceeded", true),
                    "{gpu}: PCIe replays at {pcie_replays_per_min}, above DCGM's limit of {pcie_replay_limit_per_min} (PCI_REPLAY_RATE)"))
            .timeoutFails()
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** DCGM's replay limit per minute for a link, or null when the generation or width is unknown. */
    static Long replayLimitPerMinute(Long gen, Long width) {
        if (gen == null || width == null || gen < 1 || width < 1) {
            return null;
        }
        double perLane = REPLAYS_PER_LANE_PER_MIN[(int) Math.min(gen, REPLAYS_PER_LANE_PER_MIN.length) - 1];
        return (long) Math.ceil(perLane * width);
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        CounterHistory history = new CounterHistory(ctx.state(), ctx.clock().instant());
        return GpuScan.run(ctx, GpuData.PCIE, false, (gpu, out) -> {
            Long gen = gpu.pcieGeneration();
            Long genMax = gpu.pcieMaxGeneration();
            Long width = gpu.pcieWidth();
            Long widthMax = gpu.pcieMaxWidth();
            out.put("pcie_gen", gen).put("pcie_gen_max", genMax).put("pcie_width", width).put("pcie_width_max", widthMax);
            if (gen != null && genMax != null) {
                out.put("pcie_gen_degraded", gen < genMax);
            }
            if (width != null && widthMax != null) {
                out.put("pcie_width_degraded", width < widthMax);
            }
            Long replays = gpu.pcieReplays();
            out.put("pcie_replays", replays);
            Long limit = replayLimitPerMinute(gen, width);
            out.put("pcie_replay_limit_per_min", limit);
            CounterHistory.Change change = history.record(GpuEccProbe.key(gpu), "pcie_replays", replays);
            if (change != null) {
                out.put("pcie_replays_per_min", change.perMinute());
                if (limit != null) {
                    out.put("pcie_replay_rate_exceeded", change.perMinute() > limit);
                }
            }
        });
    }
}
