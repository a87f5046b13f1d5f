package dev.nhc.daemon;

import dev.nhc.engine.plan.Plan;

import java.util.function.Consumer;

/**
 * Something outside the schedule that makes checks run at once — NVML XID events, new kernel log
 * lines: a fatal XID must change the verdict within a second, not at the next interval. It names
 * the checks to re-run by a probe tag ({@link dev.nhc.probe.Tags}), never by name.
 */
public interface RecheckTrigger extends AutoCloseable {

    /**
     * Starts watching (on its own thread) if this plan has something for it; {@code recheck} re-runs
     * the checks with a tag. Called again with each reloaded plan: what it watched for the previous
     * one is closed first (or kept when the new plan asks for the same), never left running beside.
     */
    void start(Plan plan, Consumer<String> recheck) throws Exception;

    @Override
    void close();
}
