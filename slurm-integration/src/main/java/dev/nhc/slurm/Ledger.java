package dev.nhc.slurm;

import dev.nhc.model.SlurmState;
import dev.nhc.engine.state.StateSection;

import java.time.Instant;

/**
 * nhc's own record, in the state store, of what it did to the node: the reason it set (ownership
 * is this record AND the same reason still on the node), the passing runs since, and an intended
 * change that Slurm did not take yet. An intent is written before scontrol is called, so a run
 * killed between the two still recognises its own drain on the next run.
 */
final class Ledger {
    private final StateSection s;
    private final boolean missing;

    Ledger(StateSection s, String node) {
        this.s = s;
        this.missing = s.getString("node") == null || !node.equals(s.getString("node"));
        if (s.getString("node") != null && !node.equals(s.getString("node"))) {
            // The state directory moved to another node (image cloned): the old node's record means nothing here.
            s.clear();
        }
        s.put("node", node);
    }

    /**
     * Whether there was no record for this node before this run: a first run, or a state file that
     * was lost or could not be written. nhc then cannot know what it did, and asks Slurm.
     */
    boolean missing() {
        return missing;
    }

    String ownedReason() {
        return s.getString("owned_reason");
    }

    SlurmState ownedState() {
        String v = s.getString("owned_state");
        return v == null ? null : SlurmState.parse(v);
    }

    void own(SlurmState state, String reason, Instant now) {
        if (!reason.equals(ownedReason())) {
            s.put("owned_since", now.toString());
        }
        s.put("owned_state", state.label());
        s.put("owned_reason", reason);
        clearPending();
    }

    void disown() {
        s.remove("owned_state");
        s.remove("owned_reason");
        s.remove("owned_since");
        s.remove("passes");
    }

    int passes() {
        return (int) s.getLong("passes", 0);
    }

    void passes(int n) {
        if (n == 0) {
            s.remove("passes");
        } else {
            s.put("passes", (long) n);
        }
    }

    void intend(SlurmState state, String reason, Instant now) {
        if (!(state.label().equals(s.getString("pending_state")) && reason.equals(s.getString("pending_reason")))) {
            s.put("pending_since", now.toString());
        }
        s.put("pending_state", state.label());
        s.put("pending_reason", reason);
    }

    SlurmState pendingState() {
        String v = s.getString("pending_state");
        return v == null ? null : SlurmState.parse(v);
    }

    String pendingReason() {
        return s.getString("pending_reason");
    }

    Instant pendingSince() {
        String v = s.getString("pending_since");
        try {
            return v == null ? null : Instant.parse(v);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    void clearPending() {
        s.remove("pending_state");
        s.remove("pending_reason");
        s.remove("pending_since");
    }
}
