package dev.nhc.engine.report;

import dev.nhc.engine.model.CheckResult;
import dev.nhc.engine.model.CheckStatus;
import dev.nhc.engine.model.Finding;
import dev.nhc.engine.model.Remedy;
import dev.nhc.engine.model.Severity;
import dev.nhc.engine.model.Verdict;

import java.util.List;
import java.util.Locale;

/**
 * The report for people. Short form: the verdict line and every finding that is not a pass.
 * Verbose: one line per check with its duration and outcome, then every finding with what was
 * observed, then the verdict, so that an admin reads why, not just what.
 */
public final class TextReport {
    private TextReport() {
    }

    public static String render(Verdict v, boolean verbose, List<String> notes) {
        StringBuilder out = new StringBuilder();
        if (verbose) {
            int width = v.checks().stream().mapToInt(c -> c.name().length()).max().orElse(4);
            int pwidth = v.checks().stream().mapToInt(c -> c.probe().length()).max().orElse(4);
            for (CheckResult c : v.checks()) {
                out.append(String.format(Locale.ROOT, "%-7s %-" + width + "s  %-" + pwidth + "s %6s  %s%n",
                        tag(c), c.name(), c.probe(), c.status() == CheckStatus.SKIPPED ? "-" : c.durationMs() + "ms", summary(c)));
            }
            out.append('\n');
        }
        List<Finding> shown = v.findings();
        for (Finding f : shown) {
            // Messages name their entity themselves when it is not the node (they also become Slurm reasons, which carry no entity).
            String entity = "node".equals(f.entity()) || f.message().startsWith(f.entity()) ? "" : f.entity() + ": ";
            out.append(String.format(Locale.ROOT, "%-7s %s: %s%s", f.severity().label().toUpperCase(Locale.ROOT), f.check(), entity, f.message()));
            if (f.remedy() != Remedy.NONE) {
                out.append(" [remedy: ").append(f.remedy().label()).append(']');
            }
            if (f.severity() == Severity.FAIL && f.slurmState() != null) {
                out.append(" [slurm: ").append(f.slurmState().label()).append(']');
            }
            out.append('\n');
            if (verbose && !f.observed().isEmpty()) {
                out.append("        observed: ").append(f.observed()).append('\n');
            }
        }
        for (String n : notes) {
            out.append("note: ").append(n).append('\n');
        }
        int ran = (int) v.checks().stream().filter(c -> c.status() != CheckStatus.SKIPPED).count();
        out.append(String.format(Locale.ROOT, "%s: %s (%d checks run, %d skipped, %d findings) in %d ms%n",
                v.node(), v.severity().label().toUpperCase(Locale.ROOT), ran, v.checks().size() - ran, v.findings().size(), v.durationMs()));
        return out.toString();
    }

    private static String tag(CheckResult c) {
        return switch (c.status()) {
            case SKIPPED -> "SKIP";
            case TIMED_OUT -> "TIMEOUT";
            default -> c.severity().label().toUpperCase(Locale.ROOT);
        };
    }

    private static String summary(CheckResult c) {
        if (c.note() != null) {
            return c.note();
        }
        long bad = c.findings().stream().filter(f -> f.severity() != Severity.PASS).count();
        if (bad > 0) {
            return bad + (bad == 1 ? " finding" : " findings");
        }
        // A pass says what was looked at, so "PASS" is never just a word.
        StringBuilder s = new StringBuilder();
        for (Finding f : c.findings()) {
            if (s.length() > 0) {
                s.append("; ");
            }
            s.append(f.message());
            if (s.length() > 100) {
                s.setLength(97);
                s.append("...");
                break;
            }
        }
        return s.length() == 0 ? c.observations().size() + " entities observed" : s.toString();
    }
}
