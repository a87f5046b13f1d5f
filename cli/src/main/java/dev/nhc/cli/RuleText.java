package dev.nhc.cli;

import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeSpec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A default rule as a config would write it, for {@code nhc list}:
 * {@code fail: { used_percent: "> 98%" }  remedy: reset-gpu  message: "..."}, each threshold with
 * its field's unit, as a config may write it too.
 */
final class RuleText {
    /** A threshold without a unit: an optional operator and a plain number. */
    private static final Pattern BARE = Pattern.compile("(\\s*(?:[<>]=?|[=!]=)?\\s*)(-?[0-9]+(?:\\.[0-9]+)?)\\s*");

    private RuleText() {
    }

    static String of(DefaultRule r, ProbeSpec spec) {
        StringBuilder b = new StringBuilder();
        b.append(r.severity().label()).append(": ").append(yaml(withUnits(r.condition(), spec)));
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

    /**
     * Why an UNKNOWN rule is listed beside a FAIL or WARN rule of the same condition: the first
     * that holds decides, so it applies only where a check's own fail: or warn: replaced that one.
     */
    static String whenItApplies(DefaultRule r, ProbeSpec spec) {
        if (r.severity() != Severity.UNKNOWN) {
            return "";
        }
        for (DefaultRule other : spec.defaultRules()) {
            if (other.severity() != Severity.UNKNOWN && other.condition().equals(r.condition()) && other.when().equals(r.when())) {
                String sev = other.severity().label();
                return "  (the " + sev + " rule above decides first; this one applies when a check's own " + sev + ": replaces it)";
            }
        }
        return "";
    }

    /** The condition with the field's unit after each bare number: {@code { used_percent: "> 98%" }}. */
    static Object withUnits(Object condition, ProbeSpec spec) {
        if (condition instanceof List<?> l) {
            return l.stream().map(c -> withUnits(c, spec)).toList();
        }
        if (!(condition instanceof Map<?, ?> m)) {
            return condition;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), withUnit(v, spec.field(String.valueOf(k)).orElse(null))));
        return out;
    }

    private static Object withUnit(Object value, FieldSpec field) {
        if (field == null || !field.unit().isNumeric() || field.unit().symbol().isEmpty()) {
            return value;
        }
        if (value instanceof Number n) {
            return n + field.unit().symbol();
        }
        if (value instanceof String s) {
            Matcher m = BARE.matcher(s);
            if (m.matches()) {
                return m.group(1) + m.group(2) + field.unit().symbol();
            }
        }
        return value;
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
