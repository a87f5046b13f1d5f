package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.MemoryLocation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.Locale;
import java.util.Map;

/**
 * {@code gpu.ecc}: ECC error counters, volatile (since the driver loaded) and aggregate (the
 * GPU's lifetime), corrected and uncorrected, in total and in DRAM and SRAM. Judged like DCGM's
 * memory watch: any volatile uncorrectable error fails; corrected errors only matter when they
 * rise quickly, which needs the previous run's counter.
 */
public final class GpuEccProbe implements Probe {

    private static final ProbeSpec SPEC;

    static {
        ProbeSpec.Builder b = GpuSpecs.builder("gpu.ecc",
                        "ECC error counters (volatile and aggregate, corrected and uncorrected, total, DRAM, SRAM) and the corrected-error rate",
                        Tags.MEMORY)
                .field("ecc_enabled", Unit.BOOLEAN, "whether ECC is on")
                .optional("ecc_enabled");
        // NVML answers NOT_SUPPORTED for counters a GPU does not keep (SRAM before Hopper): absent, not judged.
        for (EccCounter c : EccCounter.values()) {
            for (EccError t : EccError.values()) {
                b.field(name(c, null, t), Unit.COUNT, lower(c) + " " + lower(t) + " ECC errors, all locations").optional(name(c, null, t));
                for (MemoryLocation l : MemoryLocation.values()) {
                    b.field(name(c, l, t), Unit.COUNT, lower(c) + " " + lower(t) + " ECC errors in " + l.name()).optional(name(c, l, t));
                }
            }
        }
        SPEC = b.field("corrected_per_hour", Unit.PER_HOUR, "growth of volatile corrected errors since the previous run")
                .optional("corrected_per_hour")
                .rule(DefaultRule.fail(Map.of("volatile_uncorrected", "> 0"),
                        "{gpu}: {volatile_uncorrected} uncorrectable ECC {volatile_uncorrected|error|errors} since the driver loaded (DCGM: VOLATILE_DBE_DETECTED)")
                        .remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of("aggregate_sram_uncorrected", "> 0"),
                        "{gpu}: {aggregate_sram_uncorrected} uncorrectable SRAM ECC {aggregate_sram_uncorrected|error|errors} in the GPU's lifetime")
                        .remedy(Remedy.HARDWARE))
                .rule(DefaultRule.warn(Map.of("corrected_per_hour", "> 100"),
                        "{gpu}: corrected ECC errors rising at {corrected_per_hour}"))
                .rule(DefaultRule.warn(Map.of("ecc_enabled", false), "{gpu}: ECC is disabled"))
                .build();
    }

    static String name(EccCounter c, MemoryLocation l, EccError t) {
        return lower(c) + "_" + (l == null ? "" : lower(l) + "_") + lower(t);
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        CounterHistory history = new CounterHistory(ctx.state(), ctx.clock().instant());
        return GpuScan.run(ctx, GpuData.ECC, (gpu, out) -> {
            out.put("ecc_enabled", gpu.eccEnabled());
            Long volatileCorrected = null;
            for (EccCounter c : EccCounter.values()) {
                for (EccError t : EccError.values()) {
                    Long total = gpu.eccErrors(c, t, null);
                    out.put(name(c, null, t), total);
                    if (c == EccCounter.VOLATILE && t == EccError.CORRECTED) {
                        volatileCorrected = total;
                    }
                    for (MemoryLocation l : MemoryLocation.values()) {
                        out.put(name(c, l, t), gpu.eccErrors(c, t, l));
                    }
                }
            }
            CounterHistory.Change change = history.record(key(gpu), "volatile_corrected", volatileCorrected);
            if (change != null) {
                out.put("corrected_per_hour", change.perHour());
            }
        });
    }

    /** State key of a GPU: its bus id, else its index. */
    static String key(GpuDevice gpu) {
        return gpu.pciBusId() != null ? gpu.pciBusId() : "gpu" + gpu.index();
    }
}
