package dev.nhc.engine.policy;

import dev.nhc.model.Finding;
import dev.nhc.model.SlurmState;

import java.util.List;

/**
 * What a verdict asks of Slurm: HOLD the node (DRAIN or FAIL, for these failing findings),
 * RELEASE it (everything passed: resume it if nhc holds it), or NOTHING (warnings or checks that
 * could not decide: no change either way).
 */
public record SlurmIntent(Kind kind, SlurmState state, List<Finding> failures) {
    public enum Kind { HOLD, RELEASE, NOTHING }

    public SlurmIntent {
        failures = List.copyOf(failures);
    }

    public static SlurmIntent release() {
        return new SlurmIntent(Kind.RELEASE, null, List.of());
    }

    public static SlurmIntent nothing() {
        return new SlurmIntent(Kind.NOTHING, null, List.of());
    }
}
