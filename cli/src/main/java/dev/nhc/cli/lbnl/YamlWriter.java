package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.LbnlImporter.Emitted;
import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.cli.lbnl.LbnlImporter.Result;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes an import as a commented nhc config. Every string is either plain (a conservative set of
 * characters YAML cannot misread) or double-quoted with escapes; comments never carry a line break
 * or a control character from the LBNL file, so nothing in the input can add YAML structure.
 */
public final class YamlWriter {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/][A-Za-z0-9_./-]*");
    private static final Set<String> RESERVED = Set.of("true", "false", "yes", "no", "on", "off", "null", "y", "n", "~");

    private YamlWriter() {
    }

    public static String write(Result r) {
        StringBuilder y = new StringBuilder();
        String file = fileName(r.file());
        y.append("# nhc config imported by 'nhc import-lbnl' from ").append(comment(r.file())).append('\n');
        y.append("# ").append(r.count(Kind.TRANSLATED)).append(r.count(Kind.TRANSLATED) == 1 ? " line" : " lines").append(" translated, ").append(r.count(Kind.CARRIED_OVER))
                .append(" carried over (LBNL NHC evaluates them: 'nhc -e', which neither logs nor marks the node offline), ")
                .append(r.count(Kind.REFUSED)).append(" refused.\n");
        y.append("# Each translated check fails when LBNL NHC's function would, and counts a check that cannot decide as failed\n");
        y.append("# (on_unknown: fail), as an LBNL function that errs fails. Host patterns with a dot are matched against the\n");
        y.append("# full host name, as LBNL NHC did; the others against the short one. Where a check differs from the LBNL line,\n");
        y.append("# its comment says how ('differs:'), and so did 'nhc import-lbnl' on stderr.\n");
        if (r.hasActions()) {
            y.append("# Some checks have an action LBNL NHC took (starting a service); nhc runs them only with settings.run_actions: true,\n");
            y.append("# which this config leaves off: nhc changes nothing on the node unasked.\n");
        }
        y.append("nhc: 1\n");
        if (!r.settings().isEmpty()) {
            y.append("settings:\n");
            for (Entry e : r.entries()) {
                if (e.settings().isEmpty()) {
                    continue;
                }
                lineComment(y, "  ", file, e);
                for (Map.Entry<String, Object> s : e.settings().entrySet()) {
                    if (r.settings().get(s.getKey()) == s.getValue()) {
                        y.append("  ").append(s.getKey()).append(": ").append(scalar(s.getValue())).append('\n');
                    }
                }
            }
        }
        if (!r.hostgroups().isEmpty()) {
            y.append("hostgroups:\n");
            for (Map.Entry<String, List<String>> g : r.hostgroups().entrySet()) {
                y.append("  # LBNL host match: ").append(comment(r.hostgroupSources().get(g.getKey()))).append('\n');
                y.append("  ").append(g.getKey()).append(": ").append(g.getValue().size() == 1 ? scalar(g.getValue().get(0)) : list(g.getValue())).append('\n');
            }
        }
        y.append("checks:");
        boolean any = r.entries().stream().anyMatch(e -> !e.checks().isEmpty());
        y.append(any ? "\n" : " []\n");
        for (Entry e : r.entries()) {
            if (!e.settings().isEmpty() && e.notes().isEmpty()) {
                continue;
            }
            lineComment(y, "  ", file, e);
            String verdict = switch (e.kind()) {
                case TRANSLATED -> null;
                case CARRIED_OVER -> "carried over: " + e.reason();
                case REFUSED -> "REFUSED, not imported: " + e.reason();
            };
            if (verdict != null) {
                y.append("  # ").append(comment(verdict)).append('\n');
            }
            for (String n : e.notes()) {
                y.append("  # note: ").append(comment(n)).append('\n');
            }
            if (e.checks().isEmpty()) {
                for (String d : e.differences()) {
                    y.append("  # differs: ").append(comment(d)).append('\n');
                }
            }
            for (Emitted c : e.checks()) {
                check(y, c);
            }
        }
        return y.toString();
    }

    private static void check(StringBuilder y, Emitted e) {
        NhcCheck c = e.check();
        for (String n : c.notes()) {
            y.append("  # note: ").append(comment(n)).append('\n');
        }
        for (String d : c.differences()) {
            y.append("  # differs: ").append(comment(d)).append('\n');
        }
        y.append("  - name: ").append(scalar(e.name())).append('\n');
        y.append("    use: ").append(scalar(c.use())).append('\n');
        if (!e.on().isEmpty()) {
            y.append("    on: ").append(list(e.on())).append('\n');
        }
        if (!c.with().isEmpty()) {
            y.append("    with:\n");
            for (Map.Entry<String, Object> w : c.with().entrySet()) {
                y.append("      ").append(w.getKey()).append(": ")
                        .append(w.getValue() instanceof List<?> l ? list(l) : w.getValue() instanceof Map<?, ?> m ? map(m) : scalar(w.getValue()))
                        .append('\n');
            }
        }
        if (c.hasNoWarnings()) {
            y.append("    warn: none\n");
        }
        if (c.hasNoFailures()) {
            y.append("    fail: none\n");
        } else if (!c.failAny().isEmpty()) {
            y.append("    fail:\n");
            for (Map<String, String> cond : c.failAny()) {
                boolean first = true;
                for (Map.Entry<String, String> k : cond.entrySet()) {
                    y.append(first ? "      - " : "        ").append(k.getKey()).append(": ").append(scalar(k.getValue())).append('\n');
                    first = false;
                }
            }
        }
        if (c.timeout() != null) {
            y.append("    timeout: ").append(scalar(c.timeout())).append('\n');
        }
        y.append("    on_unknown: ").append(c.onUnknown()).append('\n');
    }

    private static void lineComment(StringBuilder y, String indent, String file, Entry e) {
        String[] lines = e.line().text().split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            y.append(indent).append("# ").append(i == 0 ? "from " + file + ":" + e.line().number() + ": " : "    ")
                    .append(comment(lines[i].strip())).append('\n');
        }
    }

    private static String fileName(String path) {
        int slash = path.lastIndexOf('/');
        return slash >= 0 ? path.substring(slash + 1) : path;
    }

    static String map(Map<?, ?> entries) {
        StringBuilder b = new StringBuilder("{ ");
        boolean first = true;
        for (Map.Entry<?, ?> e : entries.entrySet()) {
            b.append(first ? "" : ", ").append(scalar(e.getKey())).append(": ").append(scalar(e.getValue()));
            first = false;
        }
        return b.append(" }").toString();
    }

    static String list(List<?> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(scalar(items.get(i)));
        }
        return b.append(']').toString();
    }

    static String scalar(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Boolean) {
            return v.toString();
        }
        String s = String.valueOf(v);
        if (PLAIN.matcher(s).matches() && !RESERVED.contains(s.toLowerCase(java.util.Locale.ROOT))) {
            return s;
        }
        StringBuilder q = new StringBuilder("\"");
        s.codePoints().forEach(cp -> {
            switch (cp) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\t' -> q.append("\\t");
                case '\r' -> q.append("\\r");
                default -> {
                    if (cp < 0x20 || cp == 0x7F || cp == 0x85 || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF) {
                        q.append(String.format("\\u%04X", cp));
                    } else {
                        q.appendCodePoint(cp);
                    }
                }
            }
        });
        return q.append('"').toString();
    }

    /** Text safe inside a YAML comment: control characters shown as \xNN. */
    static String comment(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7F || cp == 0x85 || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF) {
                b.append(String.format("\\x%02X", cp & 0xFF));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }
}
