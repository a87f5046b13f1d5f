package dev.nhc.checks.gpu;

import dev.nhc.checks.host.AllOf;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.List;
import java.util.Map;

/**
 * {@code gpu.pcie}: the GPU's PCIe link against what it can do, and how fast its replay counter
 * grows. A replay is a retransmitted packet; DCGM warns when they exceed a per-lane rate that
 * doubles with each generation (PCI_REPLAY_RATE).
 *
 * <p>A GPU at rest lowers its link generation to save power (P8 at Gen1 of Gen4 is normal), so
 * the generation is judged against the maximum only while the GPU is busy: in P0–P2, or with a
 * kernel running in the last sample. Fewer lanes than the maximum is never power saving.
 */
public final class GpuPcieProbe implements Probe {

    /** DCGM's replays per minute per lane, by PCIe generation 1..6. */
    private static final double[] REPLAYS_PER_LANE_PER_MIN = {0.15, 0.3, 0.48, 0.96, 1.92, 3.84};

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.pcie",
                    "PCIe link width against the maximum, link generation against the maximum while the GPU is busy, "
                            + "and replay counter growth against DCGM's per-lane limits", Tags.PCIE)
            .field("pcie_gen", Unit.COUNT, "current link generation")
            .field("pcie_gen_max", Unit.COUNT, "maximum link generation of the GPU")
            .field("pcie_width", Unit.COUNT, "current link width (lanes)")
            .field("pcie_width_max", Unit.COUNT, "maximum link width")
            .field("pcie_gen_degraded", Unit.BOOLEAN, "the link runs below its maximum generation (normal for a GPU at rest)")
            .field("performance_state", Unit.COUNT, "NVIDIA: the performance state: 0 for P0 (full performance) to 15 for P15; P8 is at rest")
            .field("gpu_utilization", Unit.PERCENT, "share of the last sample period in which a kernel ran on the GPU (AMD: GFX activity)")
            .field("pcie_width_degraded", Unit.BOOLEAN, "the link runs with fewer lanes than its maximum")
            .field("pcie_replays", Unit.COUNT, "replay counter")
            .field("pcie_replays_per_min", Unit.PER_MINUTE, "replay counter growth since the previous run")
            .field("pcie_replay_limit_per_min", Unit.PER_MINUTE, "DCGM's limit for this link: ceil(per-lane rate × lanes)")
            .field("pcie_replay_rate_exceeded", Unit.BOOLEAN, "replays grow faster than the limit")
            .field("pcie_recoveries", Unit.COUNT, "AMD: times the link left L0 to recover (retrain) since the driver loaded")
            .field("pcie_recoveries_increase", Unit.COUNT, "AMD: link recoveries since the previous run")
            // A library answers "not supported" for what a GPU does not have, and rates need a previous run: absent, not judged.
            .optional("pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max", "pcie_gen_degraded", "performance_state",
                    "gpu_utilization", "pcie_width_degraded", "pcie_replays", "pcie_replays_per_min",
                    "pcie_replay_limit_per_min", "pcie_replay_rate_exceeded", "pcie_recoveries", "pcie_recoveries_increase")
            .rule(DefaultRule.warn(Map.of("pcie_width_degraded", true),
                    "{gpu}: PCIe link runs at x{pcie_width} of x{pcie_width_max}"))
            .rule(DefaultRule.warn(List.of(AllOf.of("pcie_gen_degraded", true, "performance_state", "<= 2"),
                            AllOf.of("pcie_gen_degraded", true, "gpu_utilization", "> 0")),
                    "{gpu}: PCIe link runs at Gen{pcie_gen} of Gen{pcie_gen_max} while the GPU is busy "
                            + "(P{performance_state}, {gpu_utilization} utilisation)"))
            .rule(DefaultRule.warn(Map.of("pcie_replay_rate_exceeded", true),
                    "{gpu}: PCIe replays at {pcie_replays_per_min}, above DCGM's limit of {pcie_replay_limit_per_min} (PCI_REPLAY_RATE)"))
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
        return GpuScan.run(ctx, SPEC, GpuData.PCIE, (gpu, out) -> {
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
            out.put("performance_state", gpu.performanceState()).put("gpu_utilization", gpu.gpuUtilization());
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
            Long recoveries = gpu.pcieRecoveries();
            out.put("pcie_recoveries", recoveries);
            CounterHistory.Change retrained = history.record(GpuEccProbe.key(gpu), "pcie_recoveries", recoveries);
            if (retrained != null) {
                out.put("pcie_recoveries_increase", retrained.increase());
            }
        });
    }
}
