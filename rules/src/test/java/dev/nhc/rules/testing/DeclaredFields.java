package dev.nhc.rules.testing;

import dev.nhc.model.Observation;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.RuleEngine;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Whether what a probe emits is what its spec declares: the rules judge a declared field that is
 * absent as "cannot decide", so a probe that reports a field it does not declare, under another
 * name or type, or leaves out one it declares, makes its checks wrong in silence. Tests of every
 * probe run this over the observations of a realistic run.
 */
public final class DeclaredFields {
    private DeclaredFields() {
    }

    /**
     * What is wrong with these observations of a probe: a field it does not declare, or reports as
     * another type than its unit; and, when {@code complete}
     * (the probe saw every entity whole), a declared field that is not optional but absent from a
     * readable observation of an entity of its kinds. Also every name its default rules use that
     * it does not declare.
     */
    public static List<String> problems(ProbeSpec spec, Collection<Observation> observations, boolean complete) {
        List<String> out = new ArrayList<>(RuleEngine.undeclaredNames(spec));
        for (Observation o : observations) {
            String of = spec.name() + " " + o.entity().kind().label() + " '" + o.entity().label() + "'";
            for (Map.Entry<String, Object> e : o.fields().entrySet()) {
                FieldSpec f = spec.field(e.getKey()).orElse(null);
                if (f == null) {
                    out.add(of + ": reports undeclared field " + e.getKey() + " = " + e.getValue());
                } else if (!typed(f.unit(), e.getValue())) {
                    out.add(of + ": " + f.name() + " is declared " + f.unit() + " but reported as "
                            + e.getValue().getClass().getSimpleName() + " " + e.getValue());
                }
            }
            if (complete && o.readable()) {
                List<String> missing = new ArrayList<>();
                for (FieldSpec f : spec.fields()) {
                    if (f.requiredIn(o) && o.get(f.name()) == null) {
                        missing.add(f.name());
                    }
                }
                if (!missing.isEmpty()) {
                    out.add(of + ": does not report " + String.join(", ", missing) + " (declared, not optional; reported: "
                            + String.join(", ", o.fields().keySet()) + ")");
                }
            }
        }
        return out;
    }

    private static boolean typed(Unit unit, Object value) {
        return switch (unit) {
            case BOOLEAN -> value instanceof Boolean;
            case TEXT -> value instanceof String;
            default -> value instanceof Long || value instanceof Double;
        };
    }
}
