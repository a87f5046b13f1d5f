package dev.nhc.daemon;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Small verdicts for tests. */
final class Verdicts {
    private Verdicts() {
    }

    static Verdict healthy() {
        return new Verdict("node1", Instant.parse("2026-11-22T04:00:00Z"), 12,
                List.of(check("root-fs", "disk.usage", CheckStatus.COMPLETED)));
    }

    static Verdict with(CheckResult... checks) {
        return new Verdict("node1", Instant.parse("2026-11-22T04:00:00Z"), 12, List.of(checks));
    }

    static CheckResult check(String name, String probe, CheckStatus status, Finding... findings) {
        List<Finding> fs = List.of(findings).stream().map(f -> f.withCheck(name)).toList();
        return new CheckResult(name, probe, status, CheckResult.worstOf(fs), 7, fs, List.of(), null);
    }

    static Finding finding(String entity, Severity s, String message) {
        return new Finding(null, entity, s, message, Remedy.NONE, null, Map.of());
    }
}
