package dev.nhc.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * All checks of one run on one node. {@code severity} is decided by the engine's severity policy
 * (the worst finding of any check that ran; skipped checks do not count), never recomputed here.
 */
public record Verdict(String node, Instant started, long durationMs, List<CheckResult> checks, Severity severity) {

    public Verdict {
        checks = List.copyOf(checks);
    }

    /** Every finding that is not a pass, in check order. */
    public List<Finding> findings() {
        List<Finding> out = new ArrayList<>();
        for (CheckResult c : checks) {
            for (Finding f : c.findings()) {
                if (f.severity() != Severity.PASS) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    public List<Finding> findings(Severity wanted) {
        List<Finding> out = new ArrayList<>();
        for (Finding f : findings()) {
            if (f.severity() == wanted) {
                out.add(f);
            }
        }
        return out;
    }
}
