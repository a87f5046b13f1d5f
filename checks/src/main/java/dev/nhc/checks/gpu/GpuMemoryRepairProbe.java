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
 * {@code gpu.memory-repair}: how the GPU has repaired its memory. NVIDIA's Ampere and later remap
 * rows (a pending remap needs a GPU reset to take effect; a failed remap means the GPU is out of
 * spare rows and needs service); older NVIDIA GPUs retire pages (DCGM: pending → warn, 63 or more
 * → fail). AMD keeps a bad-page table: a page marked bad for an uncorrectable error is retired
 * (reserved) when the driver next loads or the GPU is reset, so until then it is "pending" and
 * still in use, which fails like a pending row remap; a page that could not be reserved at all
 * fails for service.
 */
public final class GpuMemoryRepairProbe implements Probe {

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.memory-repair",
                    "row remapping (NVIDIA Ampere+), page retirement (older NVIDIA GPUs) and AMD's bad-page table: pending repairs, failures, counts", Tags.MEMORY)
            .field("remapped_rows_correctable", Unit.COUNT, "NVIDIA: rows remapped for correctable errors")
            .field("remapped_rows_uncorrectable", Unit.COUNT, "NVIDIA: rows remapped for uncorrectable errors")
            .field("remap_pending", Unit.BOOLEAN, "NVIDIA: a remap waits for a GPU reset")
            .field("remap_failure", Unit.BOOLEAN, "NVIDIA: a remap failed (no spare rows left)")
            .field("retired_pages_sbe", Unit.COUNT, "NVIDIA: pages retired for multiple single-bit errors")
            .field("retired_pages_dbe", Unit.COUNT, "NVIDIA: pages retired for double-bit errors")
            .field("retired_pages", Unit.COUNT, "NVIDIA: pages retired, both causes")
            .field("retired_pages_pending", Unit.BOOLEAN, "NVIDIA: a page retirement waits for a reboot or driver reload")
            .field("bad_pages", Unit.COUNT, "AMD: pages in the bad-page table, retired (reserved) or not")
            .field("bad_pages_retired", Unit.COUNT, "AMD: bad pages reserved, i.e. out of use")
            .field("bad_pages_pending", Unit.COUNT, "AMD: bad pages not retired yet: still in use until the GPU is reset or the driver reloaded")
            .field("bad_pages_unreservable", Unit.COUNT, "AMD: bad pages that could not be retired")
            // A library answers "not supported" for what a GPU does not have (and each vendor has its own): absent, not judged.
            .optional("remapped_rows_correctable", "remapped_rows_uncorrectable", "remap_pending", "remap_failure",
                    "retired_pages_sbe", "retired_pages_dbe", "retired_pages", "retired_pages_pending",
                    "bad_pages", "bad_pages_retired", "bad_pages_pending", "bad_pages_unreservable")
            .rule(DefaultRule.fail(Map.of("remap_failure", true),
                            "{gpu}: a row remap failed, the GPU has no spare memory rows left (DCGM: ROW_REMAP_FAILURE); it needs replacing")
                    .remedy(Remedy.HARDWARE).slurmState(SlurmState.FAIL))
            .rule(DefaultRule.fail(Map.of("remap_pending", true),
                            "{gpu}: a row remap is pending, reset the GPU to apply it (DCGM: PENDING_ROW_REMAP)")
                    .remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("bad_pages_unreservable", "> 0"),
                            "{gpu}: {bad_pages_unreservable} bad memory {bad_pages_unreservable|page|pages} could not be retired; "
                                    + "the GPU needs replacing")
                    .remedy(Remedy.HARDWARE).slurmState(SlurmState.FAIL))
            .rule(DefaultRule.fail(Map.of("bad_pages_pending", "> 0"),
                            "{gpu}: {bad_pages_pending} bad memory {bad_pages_pending|page is|pages are} pending retirement and still in use; "
                                    + "reset the GPU (amd-smi reset -G) or reload amdgpu to retire {bad_pages_pending|it|them}")
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
        return GpuScan.run(ctx, SPEC, GpuData.MEMORY_REPAIR, (gpu, out) -> {
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
            GpuDevice.BadPages bad = gpu.badPages();
            if (bad != null) {
                out.put("bad_pages", bad.retired() + bad.pending() + bad.unreservable()).put("bad_pages_retired", bad.retired())
                        .put("bad_pages_pending", bad.pending()).put("bad_pages_unreservable", bad.unreservable());
            }
        });
    }
}
