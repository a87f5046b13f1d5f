package dev.nhc.slurm;

import dev.nhc.engine.state.StateSection;
import dev.nhc.model.SlurmState;
import dev.nhc.slurm.repair.RepairRecord;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * What nhc's Slurm record ({@code state_dir/slurm.json}) says, read without changing it, for
 * {@code nhc status}: the state and reason nhc set and since when, the passing runs towards
 * {@code resume_after}, a change Slurm did not take yet, and the repair ladder's keys. A record
 * that holds values nhc never writes is reported as such ({@code invalid}) and nothing else of it.
 */
public record SlurmRecord(String node, String invalid, String lost, SlurmState owned, String reason, Instant since, int passes,
                          SlurmState pending, String pendingReason, Instant pendingSince, RepairRecord repair) {

    public static SlurmRecord read(StateSection s) {
        String invalid = Ledger.invalid(s);
        if (invalid != null) {
            return new SlurmRecord(null, invalid, s.lostBecause(), null, null, null, 0, null, null, null,
                    new RepairRecord(StateSection.detached(s.name())));
        }
        return new SlurmRecord(s.getString("node"), null, s.lostBecause(), state(s.getString("owned_state")), s.getString("owned_reason"),
                instant(s.getString("owned_since")), (int) s.getLong("passes", 0), state(s.getString("pending_state")),
                s.getString("pending_reason"), instant(s.getString("pending_since")), new RepairRecord(s));
    }

    private static SlurmState state(String label) {
        return label == null ? null : SlurmState.parse(label);
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
