package dev.nhc.model;

import java.util.List;

/**
 * The outcome of one configured check in one run. {@code severity} is the worst of its findings
 * (PASS when it has none); a SKIPPED check carries PASS and never counts towards the verdict.
 * {@code note} is a one-line explanation for the text report (why skipped, why timed out).
 */
public record CheckResult(String name, String probe, CheckStatus status, Severity severity, long durationMs,
                          List<Finding> findings, List<Observation> observations, String note) {

    public CheckResult {
        findings = List.copyOf(findings);
        observations = List.copyOf(observations);
    }

    public static Severity worstOf(List<Finding> findings) {
        Severity s = Severity.PASS;
        for (Finding f : findings) {
            s = Severity.worst(s, f.severity());
        }
        return s;
    }

    public static CheckResult skipped(String name, String probe, String why) {
        return new CheckResult(name, probe, CheckStatus.SKIPPED, Severity.PASS, 0, List.of(), List.of(), why);
    }
}
