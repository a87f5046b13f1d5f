package dev.nhc.cli;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code nhc backtest}'s table: a row per capture (capture, kind, verdict, the first finding),
 * or with {@code --against} a row per capture whose verdict changed (before, after); then a
 * summary line.
 */
final class BacktestText {
    private static final int FINDING_WIDTH = 110;

    private BacktestText() {
    }

    static String render(List<Backtest.Row> rows, List<Backtest.Row> before, Map<String, Labels.Label> labels, boolean verbose) {
        List<String[]> table = new ArrayList<>();
        table.add(before == null ? new String[] {"CAPTURE", "KIND", "VERDICT", "FINDINGS"} : new String[] {"CAPTURE", "KIND", "BEFORE", "AFTER", "FINDINGS"});
        List<List<String>> details = new ArrayList<>();
        Map<Severity, Integer> counts = Backtest.counts(rows);
        List<Integer> shown = Backtest.shown(rows, before);
        for (int i : shown) {
            Backtest.Row r = rows.get(i);
            Backtest.Row b = before == null ? null : before.get(i);
            String kind = r.kind() == null ? "?" : r.kind().label();
            String verdict = upper(r.severity());
            if (labels != null) {
                Labels.Label l = labels.get(r.capture());
                verdict += l == null ? " (no label)" : l.matches(r.severity(), r.text()) ? "" : " (label: " + l.expected() + ")";
            }
            String first = first(r);
            table.add(b == null ? new String[] {r.capture(), kind, verdict, first} : new String[] {r.capture(), kind, upper(b.severity()), verdict, first});
            details.add(verbose ? all(r) : List.of());
        }
        StringBuilder out = new StringBuilder();
        int[] widths = new int[table.get(0).length];
        for (String[] row : table) {
            for (int c = 0; c < row.length - 1; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        for (int t = 0; t < table.size(); t++) {
            String[] row = table.get(t);
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                line.append(c == row.length - 1 ? row[c] : pad(row[c], widths[c] + 2));
            }
            out.append(line.toString().stripTrailing()).append('\n');
            if (t > 0) {
                for (String d : details.get(t - 1)) {
                    out.append("    ").append(d).append('\n');
                }
            }
        }
        out.append("backtest: ").append(rows.size()).append(rows.size() == 1 ? " capture: " : " captures: ");
        List<String> parts = new ArrayList<>();
        for (Severity s : new Severity[] {Severity.FAIL, Severity.WARN, Severity.UNKNOWN, Severity.PASS}) {
            parts.add(counts.getOrDefault(s, 0) + " " + s.label());
        }
        out.append(String.join(", ", parts));
        if (before != null) {
            out.append("; ").append(shown.size()).append(" changed verdict");
        }
        if (labels != null) {
            int wrong = BacktestCommand.mismatches(rows, labels).size();
            out.append("; ").append(wrong == 0 ? "every capture judged as labelled" : wrong + " not as labelled");
        }
        return out.append('\n').toString();
    }

    private static String upper(Severity s) {
        return s.label().toUpperCase(Locale.ROOT);
    }

    /** The worst finding (or the reason there is no verdict), shortened; "(+N)" for the others. */
    private static String first(Backtest.Row r) {
        if (r.verdict() == null) {
            return shorten(r.error());
        }
        List<Finding> findings = new ArrayList<>(r.verdict().findings());
        if (findings.isEmpty()) {
            return "-";
        }
        findings.sort((a, b) -> b.severity().compareTo(a.severity()));
        Finding f = findings.get(0);
        return shorten(f.check() + ": " + f.message()) + (findings.size() > 1 ? " (+" + (findings.size() - 1) + ")" : "");
    }

    private static List<String> all(Backtest.Row r) {
        if (r.verdict() == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Finding f : r.verdict().findings()) {
            out.add(upper(f.severity()) + " " + f.check() + ": " + f.message());
        }
        return out;
    }

    private static String shorten(String s) {
        String one = s.replace('\n', ' ');
        return one.length() > FINDING_WIDTH ? one.substring(0, FINDING_WIDTH - 1) + "…" : one;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
