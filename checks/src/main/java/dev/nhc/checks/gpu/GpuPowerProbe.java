package dev.nhc.checks.gpu;

import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.Map;

/** {@code gpu.power}: power draw against the enforced limit. DCGM's power watch warns when the power cannot be read at all. */
public final class GpuPowerProbe implements Probe {

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.power", "power draw against the enforced power limit; unreadable power warns",
                    Tags.POWER)
            .field("power", Unit.WATTS, "power draw (AMD: the socket power)")
            .field("power_limit", Unit.WATTS, "enforced power limit (AMD: the power cap)")
            .field("power_percent", Unit.PERCENT, "power draw as a share of the enforced limit")
            .field("power_readable", Unit.BOOLEAN, "whether the power draw could be read")
            // NVML answers NOT_SUPPORTED for what a GPU does not have, and rates need a previous run: absent, not judged.
            .optional("power", "power_limit", "power_percent", "power_readable")
            .rule(DefaultRule.warn(Map.of("power_readable", false),
                    "{gpu}: power draw cannot be read (DCGM: power unreadable)"))
            .rule(DefaultRule.warn(Map.of("power_percent", "> 100"),
                    "{gpu}: drawing {power}, above its enforced limit {power_limit}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        return GpuScan.run(ctx, SPEC, GpuData.POWER, (gpu, out) -> {
            Long mw = gpu.powerUsageMilliwatts();
            Long limitMw = gpu.enforcedPowerLimitMilliwatts();
            out.put("power_readable", mw != null);
            if (mw != null) {
                out.put("power", mw / 1000.0);
            }
            if (limitMw != null) {
                out.put("power_limit", limitMw / 1000.0);
            }
            if (mw != null && limitMw != null && limitMw > 0) {
                out.put("power_percent", 100.0 * mw / limitMw);
            }
        });
    }
}
