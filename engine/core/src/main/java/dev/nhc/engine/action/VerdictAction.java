package dev.nhc.engine.action;

import dev.nhc.engine.config.Config;
import dev.nhc.model.Verdict;
import dev.nhc.engine.state.StateStore;

import java.time.Instant;

/**
 * Maps a verdict to the world after a one-shot run (Slurm's DRAIN/FAIL/RESUME). Found by
 * ServiceLoader and selected by {@link #name()} ({@code nhc run --slurm} selects "slurm"). Called
 * with the node lock held and never for an invalid config. Must finish before {@code deadline}.
 */
public interface VerdictAction {

    String name();

    ActionOutcome apply(Verdict verdict, Config config, StateStore state, String node, Instant deadline);

    /**
     * What the action did, for the report and log ({@code lines}), and whether the run must exit 1
     * even though no finding failed (e.g. the circuit breaker refused to drain).
     */
    record ActionOutcome(java.util.List<String> lines, boolean forceFailure) {
        public static ActionOutcome nothing() {
            return new ActionOutcome(java.util.List.of(), false);
        }
    }
}
