package dev.nhc.engine.report;

import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's own words agree with their numbers: "1 check run", "2 findings". */
class TextReportTest {

    private static CheckResult check(String name, Finding... findings) {
        List<Finding> fs = List.of(findings).stream().map(f -> f.withCheck(name)).toList();
        return new CheckResult(name, "disk.usage", Set.of(), CheckStatus.COMPLETED, SeverityPolicy.STANDARD.ofFindings(fs), 3, fs, List.of(), null);
    }

    private static Verdict verdict(CheckResult... checks) {
        return SeverityPolicy.STANDARD.verdict("node1", Instant.parse("2026-11-22T04:00:00Z"), 12, List.of(checks));
    }

    private static String lastLine(String report) {
        List<String> lines = report.lines().toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void oneCheckAndOneFindingAreSingular() {
        Verdict v = verdict(check("root", Finding.of("check", Entity.NODE, Severity.FAIL, "/ is 99% full")),
                CheckResult.skipped("gpus", "gpu.inventory", Set.of(), "replay: no capture"));
        String report = TextReport.render(v, true, List.of());
        assertEquals("node1: FAIL (1 check run, 1 skipped, 1 finding) in 12 ms", lastLine(report));
        assertTrue(report.lines().anyMatch(l -> l.startsWith("FAIL    root") && l.endsWith("  1 finding")), report);
    }

    @Test
    void otherCountsArePlural() {
        Verdict none = verdict();
        assertEquals("node1: PASS (0 checks run, 0 skipped, 0 findings) in 12 ms", lastLine(TextReport.render(none, false, List.of())));
        Verdict two = verdict(check("a", Finding.of("c", Entity.NODE, Severity.WARN, "x"), Finding.of("c", Entity.NODE, Severity.WARN, "y")),
                check("b"));
        String report = TextReport.render(two, true, List.of());
        assertEquals("node1: WARN (2 checks run, 0 skipped, 2 findings) in 12 ms", lastLine(report));
        assertTrue(report.lines().anyMatch(l -> l.startsWith("WARN    a") && l.endsWith("  2 findings")), report);
        assertTrue(report.lines().anyMatch(l -> l.startsWith("PASS    b") && l.endsWith("  0 entities observed")), report);
    }
}
