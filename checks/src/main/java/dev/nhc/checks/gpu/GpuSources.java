package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.probe.ProbeContext;

/** Picks what a GPU probe reads: the replayed capture the command line put into the context, else live NVML. */
public final class GpuSources {

    private GpuSources() {
    }

    public static GpuSource forProbe(ProbeContext ctx) {
        var replay = ctx.service(GpuSource.class);
        if (replay.isPresent()) {
            return replay.get();
        }
        // Only here is NVML (and with it JNA) touched: host-only configs never get this far.
        Object library = ctx.setting("nvml_library");
        return NvmlSessions.get(library == null ? null : library.toString()).view(ctx.remaining());
    }
}
