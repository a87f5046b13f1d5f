package dev.nhc.probe;

import dev.nhc.model.Observation;

import java.util.ArrayList;
import java.util.List;

/**
 * What a probe returns: observations for the check's rules to judge (a probe never decides a
 * severity; an entity it could not read is an {@link Observation#unreadable} observation).
 * {@code skipped} non-null means the probe had nothing to look at (e.g. replay without the capture
 * it needs): the check is reported as skipped with that reason. {@code carriedOver}: the probe did
 * not look now but reports what it found earlier (a diagnostic that must not run while jobs use
 * the GPUs); for an {@code every:} check this is not a run, so the next real one is not pushed back.
 */
public record ProbeResult(List<Observation> observations, String skipped, boolean carriedOver) {

    public ProbeResult {
        observations = List.copyOf(observations);
    }

    public ProbeResult(List<Observation> observations, String skipped) {
        this(observations, skipped, false);
    }

    public ProbeResult asCarriedOver() {
        return new ProbeResult(observations, skipped, true);
    }

    public static ProbeResult of(Observation... observations) {
        return new ProbeResult(List.of(observations), null);
    }

    public static ProbeResult skipped(String why) {
        return new ProbeResult(List.of(), why);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final List<Observation> observations = new ArrayList<>();

        public Builder observe(Observation o) {
            observations.add(o);
            return this;
        }

        public ProbeResult build() {
            return new ProbeResult(observations, null);
        }
    }
}
