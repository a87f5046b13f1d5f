package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.RemappedRows;
import dev.nhc.checks.gpu.GpuDevice.RetirementCause;
import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.Map;

/**
 * {@code gpu.memory-repair}: how the GPU has repaired its memory. Ampere and later remap rows
 * (a pending remap needs a GPU reset to take effect; a failed remap means the GPU is out of spare
 * rows and needs service); older GPUs retire pages (DCGM: pending → warn, 63 or more → fail).
 */
public final class GpuMemoryRepairProbe implements Probe {

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.memory-repair",
                    "row remapping (Ampere+) and page retirement (older GPUs): pending repairs, failures, counts", Tags.MEMORY)
            .field("remapped_rows_correctable", Unit.COUNT, "rows remapped for correctable errors")
            .field("remapped_rows_uncorrectable", Unit.COUNT, "rows remapped for uncorrectable errors")
            .field("remap_pending", Unit.BOOLEAN, "a remap waits for a GPU reset")
            .field("remap_failure", Unit.BOOLEAN, "a remap failed (no spare rows left)")
            .field("retired_pages_sbe", Unit.COUNT, "pages retired for multiple single-bit errors")
            .field("retired_pages_dbe", Unit.COUNT, "pages retired for double-bit errors")
            .field("retired_pages", Unit.COUNT, "pages retired, both causes")
            .field("retired_pages_pending", Unit.BOOLEAN, "a page retirement waits for a reboot or driver reload")
            // NVML answers NOT_SUPPORTED for what a GPU does not have, and rates need a previous run: absent, not judged.
            .optional("remapped_rows_correctable", "remapped_rows_uncorrectable", "remap_pending", "remap_failure",
                    "retired_pages_sbe", "retired_pages_dbe", "retired_pages", "retired_pages_pending")
            .rule(DefaultRule.fail(Map.of("remap_failure", true),
                            "{gpu}: a row remap failed, the GPU has no spare memory rows left (DCGM: ROW_REMAP_FAILURE); it needs replacing")
                    .remedy(Remedy.HARDWARE).slurmState(SlurmState.FAIL))
            .rule(DefaultRule.fail(Map.of("remap_pending", true),
                            "{gpu}: a row remap is pending, reset the GPU to apply it (DCGM: PENDING_ROW_REMAP)")
                    .remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("retired_pages", ">= 63"),
                            "{gpu}: {retired_pages} retired pages, the limit is 63 (DCGM: RETIRED_PAGES_LIMIT)")
                    .remedy(Remedy.HARDWARE))
            .rule(DefaultRule.warn(Map.of("remapped_rows_uncorrectable", ">= 512"),
                    "{gpu}: {remapped_rows_uncorrectable} rows remapped for uncorrectable errors"))
            .rule(DefaultRule.warn(Map.of("retired_pages_pending", true),
                    "{gpu}: a page retirement is pending until the next reboot"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        return GpuScan.run(ctx, GpuData.MEMORY_REPAIR, (gpu, out) -> {
            RemappedRows rows = gpu.remappedRows();
            if (rows != null) {
                out.put("remapped_rows_correctable", rows.correctable())
                        .put("remapped_rows_uncorrectable", rows.uncorrectable())
                        .put("remap_pending", rows.pending())
                        .put("remap_failure", rows.failure());
            }
            Long sbe = gpu.retiredPages(RetirementCause.MULTIPLE_SINGLE_BIT_ECC);
            Long dbe = gpu.retiredPages(RetirementCause.DOUBLE_BIT_ECC);
            out.put("retired_pages_sbe", sbe).put("retired_pages_dbe", dbe);
            if (sbe != null || dbe != null) {
                out.put("retired_pages", (sbe == null ? 0 : sbe) + (dbe == null ? 0 : dbe));
            }
            out.put("retired_pages_pending", gpu.retiredPagesPending());
        });
    }
}
