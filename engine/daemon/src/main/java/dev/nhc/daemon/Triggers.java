package dev.nhc.daemon;

import dev.nhc.engine.plan.Plan;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The daemon's recheck triggers (NVML's XID events, new kernel log lines): started with the first
 * plan, started again with each reloaded one (each then replaces what it watched), closed with the
 * daemon. One that cannot start leaves its checks to their schedule.
 */
final class Triggers implements AutoCloseable {
    private final List<RecheckTrigger> all = new ArrayList<>();
    private final Consumer<String> log;
    private boolean closed;

    Triggers(Consumer<String> log) {
        this.log = log;
    }

    synchronized void add(RecheckTrigger t) {
        all.add(t);
    }

    synchronized void start(Plan plan, Consumer<String> recheckTag) {
        if (closed) {
            return; // stopped meanwhile: close() has closed them
        }
        for (RecheckTrigger t : all) {
            try {
                t.start(plan, recheckTag);
            } catch (Exception | LinkageError e) {
                // No events (e.g. no NVML on this host): the checks still run on their schedule.
                log.accept(t.getClass().getSimpleName() + " not started: " + e.getMessage() + "; its checks run on their schedule only");
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (RecheckTrigger t : all) {
            try {
                t.close();
            } catch (RuntimeException e) {
                log.accept("closing " + t.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}
