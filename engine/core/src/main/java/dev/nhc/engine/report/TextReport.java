package dev.nhc.engine.report;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.util.List;
import java.util.Locale;

/**
 * The report for people. Short form: the verdict line and every finding that is not a pass.
 * Verbose: one line per check with its duration and outcome, then every finding with what was
 * observed, then the verdict, so that an admin reads why, not just what.
 *
 * <p>Columns are padded by hand, not with String.format: Formatter's set-up costs a one-shot run
 * several milliseconds on a cold JVM.
 */
public final class TextReport {
    /** How much of what a check's PASS compared its line shows: the values and their limits of an entity or two. */
    private static final int SUMMARY_MAX = 160;

    private TextReport() {
    }

    public static String render(Verdict v, boolean verbose, List<String> notes) {
        StringBuilder out = new StringBuilder();
        if (verbose) {
            int width = 4;
            int pwidth = 4;
            for (CheckResult c : v.checks()) {
                width = Math.max(width, c.name().length());
                pwidth = Math.max(pwidth, c.probe().length());
            }
            for (CheckResult c : v.checks()) {
                pad(out, tag(c), 7).append(' ');
                pad(out, c.name(), width).append("  ");
                pad(out, c.probe(), pwidth).append(' ');
                String ms = c.status() == CheckStatus.SKIPPED ? "-" : c.durationMs() + "ms";
                out.append(" ".repeat(Math.max(0, 6 - ms.length()))).append(ms).append("  ").append(summary(c)).append('\n');
            }
            out.append('\n');
        }
        List<Finding> shown = v.findings();
        for (Finding f : shown) {
            // Messages name their entity themselves when it is not the node (they also become Slurm reasons, which carry no entity).
            String label = f.entity().label();
            String entity = f.entity().isNode() || f.message().startsWith(label) ? "" : label + ": ";
            pad(out, f.severity().label().toUpperCase(Locale.ROOT), 7).append(' ').append(f.check()).append(": ").append(entity).append(f.message());
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
        int ran = 0;
        for (CheckResult c : v.checks()) {
            if (c.status() != CheckStatus.SKIPPED) {
                ran++;
            }
        }
        out.append(v.node()).append(": ").append(v.severity().label().toUpperCase(Locale.ROOT))
                .append(" (").append(count(ran, "check")).append(" run, ").append(v.checks().size() - ran).append(" skipped, ")
                .append(count(v.findings().size(), "finding")).append(") in ").append(v.durationMs()).append(" ms\n");
        return out.toString();
    }

    /** "1 check", "2 checks", "0 checks". */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** Appends {@code text} left-aligned in a column of {@code width}. */
    private static StringBuilder pad(StringBuilder out, String text, int width) {
        out.append(text);
        for (int i = text.length(); i < width; i++) {
            out.append(' ');
        }
        return out;
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
            return count(bad, "finding");
        }
        // A pass says what was looked at, so "PASS" is never just a word.
        StringBuilder s = new StringBuilder();
        for (Finding f : c.findings()) {
            if (s.length() > 0) {
                s.append("; ");
            }
            s.append(f.message());
            if (s.length() > SUMMARY_MAX) {
                s.setLength(SUMMARY_MAX - 3);
                s.append("...");
                break;
            }
        }
        int n = c.observations().size();
        return s.length() == 0 ? n + (n == 1 ? " entity observed" : " entities observed") : s.toString();
    }
}
