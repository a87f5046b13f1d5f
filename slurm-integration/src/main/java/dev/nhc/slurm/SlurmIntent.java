package dev.nhc.slurm;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a verdict asks of Slurm: HOLD the node (DRAIN or FAIL, for these failing findings), RELEASE
 * it (everything passed: resume it if nhc holds it), or NOTHING (warnings or checks that could not
 * decide: no change either way). The Slurm column of docs/DESIGN.md's table, as a mapping of the
 * verdict's severity (which the engine's severity policy decided) in the module that acts on it.
 */
record SlurmIntent(Kind kind, SlurmState state, List<Finding> failures) {
    enum Kind { HOLD, RELEASE, NOTHING }

    private static final Map<Severity, Kind> BY_SEVERITY = new EnumMap<>(Map.of(
            Severity.PASS, Kind.RELEASE, Severity.WARN, Kind.NOTHING, Severity.UNKNOWN, Kind.NOTHING, Severity.FAIL, Kind.HOLD));

    SlurmIntent {
        failures = List.copyOf(failures);
    }

    /**
     * A hold is FAIL when any failing finding asks for it (its {@code slurm_state}, else
     * {@code failureState}: the config's {@code slurm.failure_state}), else DRAIN.
     */
    static SlurmIntent of(Verdict verdict, SlurmState failureState) {
        Kind kind = BY_SEVERITY.get(verdict.severity());
        if (kind != Kind.HOLD) {
            return new SlurmIntent(kind, null, List.of());
        }
        List<Finding> failures = verdict.findings(Severity.FAIL);
        SlurmState state = SlurmState.DRAIN;
        for (Finding f : failures) {
            SlurmState wanted = f.slurmState() != null ? f.slurmState() : failureState;
            if (wanted == SlurmState.FAIL) {
                state = SlurmState.FAIL;
            }
        }
        return new SlurmIntent(Kind.HOLD, state, failures);
    }
}
