package dev.nhc.slurm;

import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.engine.state.StateSection;
import dev.nhc.slurm.repair.RepairRecord;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * nhc's own record, in the state store, of what it did to the node: the reason it set (ownership
 * is this record AND the same reason still on the node), the passing runs since, and an intended
 * change that Slurm did not take yet. An intent is written before scontrol is called, so a run
 * killed between the two still recognises its own drain on the next run.
 */
final class Ledger {
    private final StateSection s;
    private final boolean missing;
    private final String invalid;
    private final boolean damaged;

    Ledger(StateSection s, String node) {
        this.s = s;
        this.invalid = invalid(s);
        this.damaged = invalid != null || s.lostBecause() != null;
        this.missing = invalid != null || !node.equals(s.get("node"));
        if (invalid != null || s.lostBecause() != null || s.get("node") != null && !node.equals(s.get("node"))) {
            // A record nhc did not write (edited, damaged, or of another node after an image was cloned) or one the
            // store lost: nothing in it says what nhc did to this node, so none of it is used. The next run asks Slurm.
            s.clear();
        }
        s.put("node", node);
    }

    /**
     * What the record says, read without touching it: the daemon's plugin looks before each verdict,
     * and only {@link SlurmAction} (through a {@code Ledger}) may mark the record as this node's, so
     * that its next run still sees a lost or foreign record as missing and asks Slurm.
     */
    record Peek(String invalid, SlurmState owned, boolean needsAction, SlurmState pending) {
        /** Why the record says nhc holds the node out (it set a state, or means to), or null. */
        String holds(String node) {
            if (owned != null) {
                return "nhc's Slurm record says it set node " + node + " to " + owned.name();
            }
            return pending == null ? null : "nhc's Slurm record says it means to set node " + node + " to " + pending.name();
        }
    }

    static Peek peek(StateSection s, String node) {
        String invalid = invalid(s);
        if (invalid != null || s.lostBecause() != null || !node.equals(s.get("node"))) {
            // No usable record: the action must look at Slurm once (to take back a drain of nhc's), even for a
            // verdict that did not change, e.g. the one a restarted daemon restored.
            return new Peek(invalid, null, true, null);
        }
        String owned = s.getString("owned_state");
        String pending = s.getString("pending_state");
        return new Peek(null, owned == null ? null : SlurmState.parse(owned), owned != null || pending != null,
                pending == null ? null : SlurmState.parse(pending));
    }

    /** Why the record holds values nhc never writes (a state file edited or damaged into other JSON), or null. */
    static String invalid(StateSection s) {
        List<String> bad = new ArrayList<>();
        for (String key : List.of("node", "owned_reason", "pending_reason")) {
            if (s.get(key) != null && !(s.get(key) instanceof String)) {
                bad.add(key + " is not text");
            }
        }
        for (String key : List.of("owned_state", "pending_state")) {
            Object v = s.get(key);
            if (v != null && !(v instanceof String text && STATES.contains(text))) {
                bad.add(key + " '" + v + "' is not drain or fail");
            }
        }
        for (String key : List.of("owned_since", "pending_since")) {
            Object v = s.get(key);
            if (v != null && !(v instanceof String text && isInstant(text))) {
                bad.add(key + " '" + v + "' is not a time");
            }
        }
        Object verdict = s.get("last_verdict");
        if (verdict != null && !VERDICTS.contains(verdict)) {
            bad.add("last_verdict '" + verdict + "' is not pass, warn, unknown or fail");
        }
        Object passes = s.get("passes");
        if (passes != null && !(passes instanceof Long n && n >= 0)) {
            bad.add("passes '" + passes + "' is not a count");
        }
        if ((s.get("owned_state") == null) != (s.get("owned_reason") == null)) {
            bad.add("owned_state and owned_reason come only together");
        }
        if ((s.get("pending_state") == null) != (s.get("pending_reason") == null)) {
            bad.add("pending_state and pending_reason come only together");
        }
        bad.addAll(RepairRecord.problems(s));
        return bad.isEmpty() ? null : String.join("; ", bad);
    }

    private static final Set<String> STATES = Set.of(SlurmState.DRAIN.label(), SlurmState.FAIL.label());
    private static final Set<String> VERDICTS = Set.of("pass", "warn", "unknown", "fail");

    private static boolean isInstant(String text) {
        try {
            Instant.parse(text);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    /** Why the record read was not used (values nhc never writes), or null; the record now starts afresh. */
    String invalid() {
        return invalid;
    }

    /** Whether the record read was not used: values nhc never writes, or lost by the state store. */
    boolean damaged() {
        return damaged;
    }

    /** The section itself, for the repair ladder's keys beside the ledger's ({@link RepairRecord}). */
    StateSection section() {
        return s;
    }

    /**
     * Whether there was no record for this node before this run: a first run, or a state file that
     * was lost, could not be written or held values nhc never writes. nhc then cannot know what it
     * did, and asks Slurm.
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
        // One step for the state store, which may snapshot the section from another thread (the daemon).
        synchronized (s) {
            if (!reason.equals(ownedReason())) {
                s.put("owned_since", now.toString());
            }
            s.put("owned_state", state.label());
            s.put("owned_reason", reason);
            clearPending();
        }
    }

    void disown() {
        synchronized (s) {
            s.remove("owned_state");
            s.remove("owned_reason");
            s.remove("owned_since");
            s.remove("passes");
        }
    }

    /** Whether the verdict's severity differs from the last one this record saw (the history records only changes); remembers it. */
    boolean verdictChanged(Severity severity) {
        if (severity.label().equals(s.getString("last_verdict"))) {
            return false;
        }
        s.put("last_verdict", severity.label());
        return true;
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
        // One step for the state store, which may snapshot the section from another thread (the daemon).
        synchronized (s) {
            if (!(state.label().equals(s.getString("pending_state")) && reason.equals(s.getString("pending_reason")))) {
                s.put("pending_since", now.toString());
            }
            s.put("pending_state", state.label());
            s.put("pending_reason", reason);
        }
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
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    void clearPending() {
        // One step for the state store, which may snapshot the section from another thread (the daemon).
        synchronized (s) {
            s.remove("pending_state");
            s.remove("pending_reason");
            s.remove("pending_since");
        }
    }
}
