package dev.nhc.cli;

import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;

import java.util.List;
import java.util.Map;

/**
 * A default rule as a config would write it, for {@code nhc list}:
 * {@code fail: { volatile_uncorrected: "> 0" }  remedy: reset-gpu  message: "..."}.
 */
final class RuleText {
    private RuleText() {
    }

    static String of(DefaultRule r) {
        StringBuilder b = new StringBuilder();
        b.append(r.severity().label()).append(": ").append(yaml(r.condition()));
        if (!r.when().isEmpty()) {
            b.append("  when: ").append(yaml(withPrefix(r.when())));
        }
        if (r.remedyField() != null) {
            b.append("  remedy: from field ").append(r.remedyField());
            if (r.remedy() != Remedy.NONE) {
                b.append(", else ").append(r.remedy().label());
            }
        } else if (r.remedy() != Remedy.NONE) {
            b.append("  remedy: ").append(r.remedy().label());
        }
        if (r.slurmState() != null) {
            b.append("  slurm_state: ").append(r.slurmState().label());
        }
        if (r.message() != null) {
            b.append("  message: ").append(quoted(r.message()));
        }
        return b.toString();
    }

    private static Map<String, Object> withPrefix(Map<String, Object> when) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        when.forEach((k, v) -> out.put("with." + k, v));
        return out;
    }

    /** YAML flow style: maps in braces, lists in brackets, text quoted when YAML would read it otherwise. */
    static String yaml(Object o) {
        if (o instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{ ");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(", ");
                }
                first = false;
                b.append(e.getKey()).append(": ").append(yaml(e.getValue()));
            }
            return b.append(" }").toString();
        }
        if (o instanceof List<?> l) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < l.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(yaml(l.get(i)));
            }
            return b.append(']').toString();
        }
        if (o instanceof String s) {
            return plain(s) ? s : quoted(s);
        }
        return String.valueOf(o);
    }

    private static boolean plain(String s) {
        if (s.isEmpty() || s.equals("true") || s.equals("false") || s.equals("null") || Character.isDigit(s.charAt(0))) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    private static String quoted(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
