package dev.nhc.cli;

import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.nvml.XidEventWatcher;
import dev.nhc.checks.gpu.xid.NvmlXidEvents;
import dev.nhc.daemon.RecheckTrigger;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.probe.Tags;

import java.time.Clock;
import java.util.function.Consumer;

/**
 * The daemon's NVML XID events: each critical XID goes into the {@link NvmlXidEvents} queue that
 * {@code gpu.xid} judges, and the GPU checks re-run at once. Started only when the plan has GPU
 * checks that are not AMD's alone, so a host without them never loads NVML.
 */
final class NvmlXidTrigger implements RecheckTrigger {
    private final NvmlXidEvents events;
    private final Clock clock;
    /** Set on the daemon's start or reload thread, closed by its shutdown hook. */
    private volatile XidEventWatcher watcher;
    /** The NVML library the running watcher loaded: a reload that keeps GPU checks and library keeps it. */
    private String library;

    NvmlXidTrigger(NvmlXidEvents events, Clock clock) {
        this.events = events;
        this.clock = clock;
    }

    /** Called again on each reload: watches while the new plan has GPU checks, closing the old watcher first. */
    @Override
    public synchronized void start(Plan plan, Consumer<String> recheck) {
        boolean gpu = false;
        for (PlannedCheck c : plan.checks()) {
            // every GPU check but AMD's alone (gpu.xid reads the kernel log and names no library)
            gpu |= c.spec().hasTag(Tags.GPU) && (c.spec().hasTag(GpuVendor.NVIDIA.tag()) || !c.spec().hasTag(GpuVendor.AMD.tag()));
        }
        String lib = String.valueOf(plan.settings().get(Settings.NVML_LIBRARY));
        if (gpu && watcher != null && lib.equals(library)) {
            return;
        }
        close();
        if (!gpu) {
            return;
        }
        library = lib;
        watcher = XidEventWatcher.start(plan.settings().get(Settings.NVML_LIBRARY), (index, pci, xid) -> {
            if (xid >= 0) {
                events.add(new NvmlXidEvents.Event(index, pci, xid, clock.instant()));
            }
            recheck.accept(Tags.GPU);
        });
    }

    @Override
    public synchronized void close() {
        XidEventWatcher w = watcher;
        watcher = null;
        library = null;
        if (w != null) {
            w.close();
        }
    }
}
