package dev.nhc.slurm;

import dev.nhc.engine.state.StateStore;
import dev.nhc.model.SlurmState;
import dev.nhc.slurm.history.History;

import java.io.IOException;
import java.time.Instant;

/**
 * One change nhc makes to its node in Slurm. The intent is recorded and saved first, so that a run
 * killed between scontrol and the record still recognises the change as its own; then scontrol;
 * then the record says nhc holds the node with that reason, and the history has the change.
 */
final class NodeChange {
    /** The scontrol call that makes the change. */
    interface SlurmCall {
        void run() throws SlurmUnavailableException;
    }

    private final StateStore store;
    private final Ledger ledger;
    private final History history;
    private final Report report;

    NodeChange(StateStore store, Ledger ledger, History history, Report report) {
        this.store = store;
        this.ledger = ledger;
        this.history = history;
        this.report = report;
    }

    /**
     * @param label the change for metrics and the history (drain, fail, update_reason, reboot)
     * @return false when Slurm could not be told (the intent is kept and applied on a later run)
     */
    boolean apply(SlurmState state, String reason, Instant now, String done, String label, SlurmCall call) {
        ledger.intend(state, reason, now);
        try {
            // Only nhc's Slurm record: in the daemon, other sections may belong to checks still running.
            store.flush(java.util.List.of(SlurmSection.KEY));
        } catch (IOException e) {
            // The record on disk no longer says what nhc is about to do. An out-of-date record would make a later
            // run believe nhc holds nothing and never look; no record makes it ask Slurm and recognise the change
            // as nhc's by its reason. Unlinking needs no free space.
            String forgot;
            try {
                store.forget(SlurmSection.KEY);
                forgot = "removed nhc's Slurm record, so the next run asks Slurm and recognises the change as nhc's by its reason ('"
                        + Reasons.PREFIX + " ...')";
            } catch (IOException again) {
                forgot = "could not remove nhc's out-of-date Slurm record either (" + again.getMessage() + ")";
            }
            report.warn("cannot save the intent to " + store.dir() + " before calling scontrol (" + e.getMessage() + "); going ahead: " + forgot);
        }
        try {
            call.run();
        } catch (SlurmUnavailableException e) {
            report.warn("could not tell Slurm (" + e.getMessage() + "); the " + state.label() + " is kept and applied on the next run");
            return false;
        }
        ledger.own(state, reason, now);
        report.changed(label);
        history.add(History.Event.of(label), reason, now);
        report.info(done);
        return true;
    }
}
