package dev.nhc.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** All checks of one run on one node; its severity is the worst finding of any check that ran. */
public record Verdict(String node, Instant started, long durationMs, List<CheckResult> checks) {

    public Verdict {
        checks = List.copyOf(checks);
    }

    public Severity severity() {
        Severity s = Severity.PASS;
        for (CheckResult c : checks) {
            if (c.status() != CheckStatus.SKIPPED) {
                s = Severity.worst(s, c.severity());
            }
        }
        return s;
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

    public List<Finding> findings(Severity severity) {
        return findings().stream().filter(f -> f.severity() == severity).toList();
    }
}
