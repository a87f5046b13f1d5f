package dev.nhc.model;

import java.util.List;

/**
 * The outcome of one configured check in one run. {@code severity} is what the severity policy
 * made of its findings; a SKIPPED check carries PASS and never counts towards the verdict.
 * {@code note} is a one-line explanation for the text report (why skipped, why timed out).
 * {@code tags} are its probe's ({@code gpu}, {@code nvlink}…), so that whoever maps the result to
 * the outside world (a DCGM health system, a metric) asks what it is, not what it is called.
 */
public record CheckResult(String name, String probe, java.util.Set<String> tags, CheckStatus status, Severity severity,
                          long durationMs, List<Finding> findings, List<Observation> observations, String note) {

    public CheckResult {
        tags = tags == null ? java.util.Set.of() : java.util.Set.copyOf(tags);
        findings = List.copyOf(findings);
        observations = List.copyOf(observations);
    }

    public static CheckResult skipped(String name, String probe, java.util.Set<String> tags, String why) {
        return new CheckResult(name, probe, tags, CheckStatus.SKIPPED, Severity.PASS, 0, List.of(), List.of(), why);
    }

    public boolean hasTag(String tag) {
        return tags.contains(tag);
    }
}
