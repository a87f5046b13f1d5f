package dev.nhc.probe;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;

import java.util.ArrayList;
import java.util.List;

/**
 * What a probe returns: observations for the rules to judge, plus findings the probe decided by
 * itself (a lost GPU, a missing mount, an unreadable source as UNKNOWN). Findings need no check
 * name; the runner fills it in. {@code skipped} non-null means the probe had nothing to look at
 * (e.g. replay without the capture it needs): the check is reported as skipped with that reason.
 * {@code carriedOver}: the probe did not look now but reports what it found earlier (a diagnostic
 * that must not run while jobs use the GPUs); for an {@code every:} check this is not a run, so the
 * next real one is not pushed back.
 */
public record ProbeResult(List<Observation> observations, List<Finding> findings, String skipped, boolean carriedOver) {

    public ProbeResult {
        observations = List.copyOf(observations);
        findings = List.copyOf(findings);
    }

    public ProbeResult(List<Observation> observations, List<Finding> findings, String skipped) {
        this(observations, findings, skipped, false);
    }

    public ProbeResult asCarriedOver() {
        return new ProbeResult(observations, findings, skipped, true);
    }

    public static ProbeResult of(Observation... observations) {
        return new ProbeResult(List.of(observations), List.of(), null);
    }

    public static ProbeResult skipped(String why) {
        return new ProbeResult(List.of(), List.of(), why);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final List<Observation> observations = new ArrayList<>();
        private final List<Finding> findings = new ArrayList<>();

        public Builder observe(Observation o) {
            observations.add(o);
            return this;
        }

        public Builder finding(Finding f) {
            findings.add(f);
            return this;
        }

        public ProbeResult build() {
            return new ProbeResult(observations, findings, null);
        }
    }
}
