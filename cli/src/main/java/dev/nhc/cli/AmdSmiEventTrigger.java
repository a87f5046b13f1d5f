package dev.nhc.cli;

import dev.nhc.checks.gpu.GpuSection;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.amd.AmdGpuEvents;
import dev.nhc.checks.gpu.amd.AmdSmiEventWatcher;
import dev.nhc.daemon.RecheckTrigger;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.probe.Tags;

import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The daemon's AMD SMI events, as {@link NvmlXidTrigger} is NVIDIA's XIDs: each event goes into
 * the {@link AmdGpuEvents} queue that {@code gpu.amd-events} judges, and the GPU checks re-run at
 * once, so a GPU reset drains the node within a second. Started only when the plan reads AMD's
 * GPUs; a host without AMD SMI (not configured, not installed) is quietly not watched.
 */
final class AmdSmiEventTrigger implements RecheckTrigger {
    private final AmdGpuEvents events;
    private final Clock clock;
    /** Set on the daemon's start or reload thread, closed by its shutdown hook. */
    private volatile AmdSmiEventWatcher watcher;
    /** The library the running watcher loaded: a reload that keeps AMD checks and library keeps it. */
    private String library;

    AmdSmiEventTrigger(AmdGpuEvents events, Clock clock) {
        this.events = events;
        this.clock = clock;
    }

    @Override
    public synchronized void start(Plan plan, Consumer<String> recheck) {
        boolean amd = false;
        for (PlannedCheck c : plan.checks()) {
            amd |= c.spec().hasTag(GpuVendor.AMD.tag());
        }
        String lib = GpuSection.amdSmiLibrary(plan.config().section(GpuSection.KEY));
        if (amd && watcher != null && Objects.equals(lib, library)) {
            return;
        }
        close();
        if (!amd) {
            return;
        }
        AmdSmiEventWatcher w = AmdSmiEventWatcher.start(lib, event -> {
            if (event != null) {
                events.add(event);
            }
            recheck.accept(Tags.GPU);
        }, clock);
        if (w != null) {
            library = lib;
            watcher = w;
            events.watching(w.gpus());
        }
    }

    @Override
    public synchronized void close() {
        AmdSmiEventWatcher w = watcher;
        watcher = null;
        library = null;
        events.watching(0);
        if (w != null) {
            w.close();
        }
    }
}
