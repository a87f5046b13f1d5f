package dev.nhc.checks.gpu;

import dev.nhc.engine.model.Finding;
import dev.nhc.engine.model.Observation;
import dev.nhc.engine.model.Severity;
import dev.nhc.engine.probe.DefaultRule;
import dev.nhc.engine.probe.ProbeResult;
import dev.nhc.engine.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Applies a probe's default rules to its observations, for GPU probe tests while the rules module
 * is not on this branch: only the condition forms the GPU probes use (a map of field → boolean,
 * or field → "op number" in the field's unit). Replace with {@code Evaluator.load()} once merged.
 */
public final class DefaultRules {
    private static final Pattern COMPARISON = Pattern.compile("\\s*(>=|<=|==|!=|>|<)\\s*(-?[0-9.]+)\\s*");

    private DefaultRules() {
    }

    /** The probe's own findings plus one finding per rule that holds, in rule order. */
    public static List<Finding> judge(ProbeSpec spec, ProbeResult result) {
        List<Finding> out = new ArrayList<>(result.findings());
        for (Observation o : result.observations()) {
            for (DefaultRule r : spec.defaultRules()) {
                if (holds(r.condition(), o)) {
                    out.add(new Finding(spec.name(), o.entity(), r.severity(), render(r.message(), o), r.remedy(), r.slurmState(), o.fields()));
                }
            }
        }
        return out;
    }

    public static Severity worst(List<Finding> findings) {
        Severity s = Severity.PASS;
        for (Finding f : findings) {
            s = Severity.worst(s, f.severity());
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static boolean holds(Object condition, Observation o) {
        if (condition instanceof Map<?, ?> all) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) all).entrySet()) {
                Object value = o.get(e.getKey());
                if (value == null || !matches(e.getValue(), value)) {
                    return false;
                }
            }
            return true;
        }
        if (condition instanceof List<?> any) {
            return any.stream().anyMatch(c -> holds(c, o));
        }
        throw new IllegalArgumentException("condition " + condition);
    }

    private static boolean matches(Object expected, Object value) {
        if (expected instanceof Boolean b) {
            return b.equals(value);
        }
        Matcher m = COMPARISON.matcher(expected.toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("condition " + expected);
        }
        double v = ((Number) value).doubleValue();
        double t = Double.parseDouble(m.group(2));
        return switch (m.group(1)) {
            case ">" -> v > t;
            case ">=" -> v >= t;
            case "<" -> v < t;
            case "<=" -> v <= t;
            case "==" -> v == t;
            default -> v != t;
        };
    }

    private static String render(String template, Observation o) {
        String s = template.replace("{entity}", o.entity());
        for (Map.Entry<String, Object> e : o.fields().entrySet()) {
            s = s.replace("{" + e.getKey() + "}", String.valueOf(e.getValue()));
        }
        return s;
    }
}
