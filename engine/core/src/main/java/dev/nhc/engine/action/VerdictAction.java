package dev.nhc.engine.action;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Verdict;

import java.time.Instant;
import java.util.List;

/**
 * Maps a verdict to the world after a one-shot run (Slurm's DRAIN/FAIL/RESUME). Found by
 * ServiceLoader and selected by {@link #name()} ({@code nhc run --slurm} selects "slurm"). Called
 * with the node's run lock held and never for an invalid config. Must finish before {@code deadline}.
 */
public interface VerdictAction {

    String name();

    ActionOutcome apply(Verdict verdict, Plan plan, StateStore state, String node, Instant deadline);

    /**
     * Why this action's own record says nhc holds the node out of service (drained it, means to),
     * or null; asked before the checks run, so that a check whose latches were lost keeps the node
     * out ({@link StateStore#nodeHeld}).
     */
    default String holds(StateStore state, String node) {
        return null;
    }

    /**
     * What the action did: {@code lines} for the report and log, whether the run must exit 1 even
     * though no finding failed (the circuit breaker refused to drain), and the changes it made
     * ({@code drain}, {@code fail}, {@code resume}, {@code update_reason}) for metrics.
     */
    record ActionOutcome(List<String> lines, boolean forceFailure, List<String> changes) {
        public ActionOutcome {
            lines = List.copyOf(lines);
            changes = List.copyOf(changes);
        }

        public ActionOutcome(List<String> lines, boolean forceFailure) {
            this(lines, forceFailure, List.of());
        }

        public static ActionOutcome nothing() {
            return new ActionOutcome(List.of(), false, List.of());
        }
    }
}
