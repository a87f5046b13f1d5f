package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.host.AllOf;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code gpu.ecc}: ECC error counters, volatile (since the driver loaded) and aggregate (the
 * GPU's lifetime; NVIDIA), corrected and uncorrected, in total and by where they were counted
 * (NVIDIA: DRAM and SRAM; AMD: its RAS blocks, the UMC — the HBM's memory controller — as DRAM).
 * Judged like DCGM's memory watch: any volatile uncorrectable error fails; corrected errors only
 * matter when they rise quickly, which needs the previous run's counter. AMD's deferred errors
 * (uncorrectable, contained until the memory is read) warn.
 */
public final class GpuEccProbe implements Probe {
    /** The blocks with numeric fields of their own; AMD's other RAS blocks are named in the *_blocks fields. */
    private static final List<EccBlock> BLOCK_FIELDS = List.of(EccBlock.DRAM, EccBlock.SRAM);

    private static final ProbeSpec SPEC;

    static {
        ProbeSpec.Builder b = GpuSpecs.builder("gpu.ecc",
                        "ECC error counters (volatile and aggregate, corrected and uncorrected, total, DRAM, SRAM, AMD's RAS blocks) "
                                + "and the corrected-error rate",
                        Tags.MEMORY)
                .field("ecc_enabled", Unit.BOOLEAN, "whether ECC is on (AMD: on the UMC)")
                .optional("ecc_enabled");
        // A library answers "not supported" for counters a GPU does not keep (NVIDIA's SRAM before Hopper,
        // AMD's aggregate): absent, not judged.
        for (EccCounter c : EccCounter.values()) {
            for (EccError t : List.of(EccError.CORRECTED, EccError.UNCORRECTED)) {
                b.field(name(c, null, t), Unit.COUNT, lower(c) + " " + lower(t) + " ECC errors, all locations"
                        + (c == EccCounter.AGGREGATE ? " (NVIDIA)" : "")).optional(name(c, null, t));
                for (EccBlock l : BLOCK_FIELDS) {
                    b.field(name(c, l, t), Unit.COUNT, lower(c) + " " + lower(t) + " ECC errors in " + l.name()
                            + (l == EccBlock.DRAM && c == EccCounter.VOLATILE ? " (AMD: the UMC)" : " (NVIDIA)")).optional(name(c, l, t));
                }
            }
        }
        SPEC = b.field(name(EccCounter.VOLATILE, null, EccError.DEFERRED), Unit.COUNT,
                        "AMD: deferred errors (uncorrectable, contained until the memory is read), all blocks")
                .field(name(EccCounter.VOLATILE, EccBlock.DRAM, EccError.DEFERRED), Unit.COUNT, "AMD: deferred errors in the UMC")
                .field("uncorrected_blocks", Unit.TEXT, "where volatile uncorrectable errors were counted, by the vendor's names: "
                        + "DRAM 2 (NVIDIA), UMC 2, XGMI_WAFL 1 (AMD); 'none' when nowhere")
                .field("corrected_blocks", Unit.TEXT, "where volatile corrected errors were counted; 'none' when nowhere")
                .field("deferred_blocks", Unit.TEXT, "AMD: where deferred errors were counted; 'none' when nowhere")
                .field("corrected_per_hour", Unit.PER_HOUR, "growth of volatile corrected errors since the previous run")
                .optional(name(EccCounter.VOLATILE, null, EccError.DEFERRED), name(EccCounter.VOLATILE, EccBlock.DRAM, EccError.DEFERRED),
                        "uncorrected_blocks", "corrected_blocks", "deferred_blocks", "corrected_per_hour")
                // AMD's words first: the first rule that holds decides, and DCGM's name is NVIDIA's.
                .rule(DefaultRule.fail(AllOf.of("volatile_uncorrected", "> 0", "vendor", "AMD"),
                        "{gpu}: {volatile_uncorrected} uncorrectable ECC {volatile_uncorrected|error|errors} since the driver loaded, "
                                + "in {uncorrected_blocks}; reset the GPU (amd-smi reset -G) so that the driver retires the bad pages, "
                                + "and replace it if they come back")
                        .remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of("volatile_uncorrected", "> 0"),
                        "{gpu}: {volatile_uncorrected} uncorrectable ECC {volatile_uncorrected|error|errors} since the driver loaded (DCGM: VOLATILE_DBE_DETECTED)")
                        .remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of("aggregate_sram_uncorrected", "> 0"),
                        "{gpu}: {aggregate_sram_uncorrected} uncorrectable SRAM ECC {aggregate_sram_uncorrected|error|errors} in the GPU's lifetime")
                        .remedy(Remedy.HARDWARE))
                .rule(DefaultRule.warn(Map.of("volatile_deferred", "> 0"),
                        "{gpu}: {volatile_deferred} deferred ECC {volatile_deferred|error|errors} (poisoned memory) since the driver loaded, "
                                + "in {deferred_blocks}; a job that reads that memory fails"))
                .rule(DefaultRule.warn(Map.of("corrected_per_hour", "> 100"),
                        "{gpu}: corrected ECC errors rising at {corrected_per_hour}"))
                .rule(DefaultRule.warn(Map.of("ecc_enabled", false), "{gpu}: ECC is disabled"))
                .build();
    }

    static String name(EccCounter c, EccBlock l, EccError t) {
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
        return GpuScan.run(ctx, SPEC, GpuData.ECC, (gpu, out) -> {
            out.put("ecc_enabled", gpu.eccEnabled());
            Long volatileCorrected = null;
            for (EccCounter c : EccCounter.values()) {
                for (EccError t : EccError.values()) {
                    Long total = gpu.eccErrors(c, t, null);
                    out.put(name(c, null, t), total);
                    if (c == EccCounter.VOLATILE && t == EccError.CORRECTED) {
                        volatileCorrected = total;
                    }
                }
            }
            List<EccBlock> blocks = EccBlock.of(gpu.vendor());
            for (EccError t : EccError.values()) {
                List<String> where = new ArrayList<>();
                boolean read = false;
                for (EccBlock l : blocks) {
                    for (EccCounter c : EccCounter.values()) {
                        if (c == EccCounter.AGGREGATE && t == EccError.DEFERRED) {
                            continue;
                        }
                        Long n = gpu.eccErrors(c, t, l);
                        if (BLOCK_FIELDS.contains(l) || t == EccError.DEFERRED && l == EccBlock.DRAM) {
                            out.put(name(c, l, t), n);
                        }
                        if (c == EccCounter.VOLATILE && n != null) {
                            read = true;
                            if (n > 0) {
                                where.add(l.nameFor(gpu.vendor()) + " " + n);
                            }
                        }
                    }
                }
                if (read) {
                    out.put(lower(t) + "_blocks", where.isEmpty() ? "none" : String.join(", ", where));
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
