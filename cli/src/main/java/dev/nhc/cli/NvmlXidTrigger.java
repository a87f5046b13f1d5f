package dev.nhc.cli;

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
 * checks, so a host without them never loads NVML.
 */
final class NvmlXidTrigger implements RecheckTrigger {
    private final NvmlXidEvents events;
    private final Clock clock;
    private XidEventWatcher watcher;

    NvmlXidTrigger(NvmlXidEvents events, Clock clock) {
        this.events = events;
        this.clock = clock;
    }

    @Override
    public void start(Plan plan, Consumer<String> recheck) {
        boolean gpu = false;
        for (PlannedCheck c : plan.checks()) {
            gpu |= c.spec().hasTag(Tags.GPU);
        }
        if (!gpu) {
            return;
        }
        watcher = XidEventWatcher.start(plan.settings().get(Settings.NVML_LIBRARY), (index, pci, xid) -> {
            if (xid >= 0) {
                events.add(new NvmlXidEvents.Event(index, pci, xid, clock.instant()));
            }
            recheck.accept(Tags.GPU);
        });
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
    }
}
