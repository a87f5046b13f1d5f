package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.Location;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.config.Suggest;
import dev.nhc.model.Severity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compiles a check's {@code warn:}/{@code fail:}/{@code message:} and its probe's default rules
 * into a {@link CompiledCheck}. A config's {@code fail:} replaces every default FAIL rule of the
 * probe and {@code warn:} every default WARN rule; {@code fail: none} / {@code warn: none} drop
 * them without a replacement. Default rules apply only where their {@code when} parameters match
 * and every {@code {with.name}} they use is set.
 */
final class RuleCompiler {
    static final String NONE = "none";

    private RuleCompiler() {
    }

    /** The compiled check, or null after adding every problem found. */
    static CompiledCheck compile(CheckConfig check, ProbeSpec spec, Problems problems) {
        int before = problems.list().size();
        String label = "check '" + check.name() + "'";
        List<Rule> rules = new ArrayList<>();
        rules.addAll(rulesFor(Severity.FAIL, check.fail(), check, spec, label, problems));
        rules.addAll(rulesFor(Severity.WARN, check.warn(), check, spec, label, problems));
        // Defaults of other severities (a probe may say "this reading means UNKNOWN") are never replaced.
        for (DefaultRule d : spec.defaultRules()) {
            if (d.severity() == Severity.UNKNOWN) {
                addDefault(d, check, spec, problems, rules);
            }
        }
        MessageTemplate template = null;
        if (check.message() != null) {
            ConfigNode messageNode = check.node() == null ? null : check.node().get("message");
            Location at = messageNode != null ? messageNode.location() : check.location();
            template = MessageTemplate.parse(check.message(), spec, check.with(), at, label + " message", problems);
        }
        if (problems.list().size() > before) {
            return null;
        }
        return new CompiledCheck(spec, rules, template, check.remedy(), check.slurmState());
    }

    private static List<Rule> rulesFor(Severity severity, ConfigNode configured, CheckConfig check, ProbeSpec spec, String label,
                                       Problems problems) {
        List<Rule> out = new ArrayList<>();
        if (configured == null) {
            for (DefaultRule d : spec.defaultRules()) {
                if (d.severity() == severity) {
                    addDefault(d, check, spec, problems, out);
                }
            }
            return out;
        }
        String key = severity.label();
        if (configured.isScalar() && NONE.equals(configured.value())) {
            return out;
        }
        String where = label + " " + key;
        ConfigNode[] substituted = new ConfigNode[1];
        ParamText.Outcome o = ParamText.substitute(configured, check.with(), spec, where, problems, substituted);
        if (o == ParamText.Outcome.UNSET) {
            problems.add(configured.location(), where + ": uses a '{with.…}' parameter this check does not set");
            return out;
        }
        if (o == ParamText.Outcome.INVALID) {
            return out;
        }
        List<Clause> clauses = clauses(substituted[0], spec, where, key, problems);
        if (clauses != null) {
            out.add(new Rule(severity, clauses, null, null, null, null, false));
        }
        return out;
    }

    /** A default rule that does not compile is a bug of the probe; it is reported against the check that uses it. */
    private static void addDefault(DefaultRule d, CheckConfig check, ProbeSpec spec, Problems problems, List<Rule> out) {
        Problems own = new Problems();
        String where = "probe " + spec.name() + " default " + d.severity().label() + " rule";
        if (!applies(d, check, spec, where, own)) {
            report(own, check, problems);
            return;
        }
        List<Clause> clauses = new ArrayList<>();
        for (ConfigNode alternative : alternatives(ConfigNode.fromPlain(d.condition(), check.location()))) {
            ConfigNode[] substituted = new ConfigNode[1];
            ParamText.Outcome o = ParamText.substitute(alternative, check.with(), spec, where, own, substituted);
            if (o == ParamText.Outcome.UNSET) {
                continue; // this alternative needs a parameter the check leaves unset
            }
            if (o == ParamText.Outcome.DONE) {
                List<Clause> c = clauses(substituted[0], spec, where, d.severity().label(), own);
                if (c != null) {
                    clauses.addAll(c);
                }
            }
        }
        if (d.remedyField() != null && spec.field(d.remedyField()).isEmpty()) {
            own.add(check.location(), where + ": remedy field '" + d.remedyField() + "' is not a field of the probe");
        }
        MessageTemplate template = d.message() == null ? null
                : MessageTemplate.parse(d.message(), spec, check.with(), check.location(), where + " message", own);
        if (!own.isEmpty()) {
            report(own, check, problems);
            return;
        }
        if (!clauses.isEmpty()) {
            out.add(new Rule(d.severity(), clauses, template, d.remedy(), d.slurmState(), d.remedyField(), d.latched()));
        }
    }

    /**
     * What the probe's default rules name that its spec does not declare — a field in a condition,
     * a placeholder, a remedy field, a {@code when} parameter — whatever a check's parameters:
     * a check reports a default rule's mistakes only where the rule applies, and a test over every
     * registered probe runs this to catch the others.
     */
    static List<String> undeclaredNames(ProbeSpec spec) {
        List<String> out = new ArrayList<>();
        Location at = Location.of(spec.name());
        for (DefaultRule d : spec.defaultRules()) {
            String where = "default " + d.severity().label() + " rule " + d.condition();
            for (ConfigNode alternative : alternatives(ConfigNode.fromPlain(d.condition(), at))) {
                if (!alternative.isMap() || alternative.entries().isEmpty()) {
                    out.add(where + ": not a map of field: condition");
                    continue;
                }
                for (String field : alternative.entries().keySet()) {
                    if (spec.field(field).isEmpty()) {
                        out.add(where + ": names undeclared field '" + field + "'");
                    }
                }
            }
            for (String param : d.when().keySet()) {
                if (spec.param(param).isEmpty()) {
                    out.add(where + ": 'when' names undeclared parameter '" + param + "'");
                }
            }
            if (d.remedyField() != null && spec.field(d.remedyField()).isEmpty()) {
                out.add(where + ": remedy field '" + d.remedyField() + "' is not declared");
            }
            if (d.message() != null) {
                Problems own = new Problems();
                MessageTemplate.parse(d.message(), spec, dev.nhc.probe.Params.empty(), at, where + " message", own);
                own.list().forEach(p -> out.add(p.message()));
            }
        }
        return out;
    }

    private static void report(Problems own, CheckConfig check, Problems problems) {
        own.list().forEach(p -> problems.add(check.location(), "check '" + check.name() + "': " + p.message() + " (a bug of the probe)"));
    }

    /** Whether the check's parameters are as the rule's {@code when} needs. */
    private static boolean applies(DefaultRule d, CheckConfig check, ProbeSpec spec, String where, Problems own) {
        for (Map.Entry<String, Object> w : d.when().entrySet()) {
            var p = spec.param(w.getKey());
            if (p.isEmpty()) {
                own.add(check.location(), where + ": 'when' names no parameter '" + w.getKey() + "'");
                return false;
            }
            Object actual = p.get().get(check.with());
            if (!same(actual, w.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return x.doubleValue() == y.doubleValue();
        }
        return Objects.equals(a, b);
    }

    /** A list of maps is alternatives; a single map is one. */
    private static List<ConfigNode> alternatives(ConfigNode node) {
        return node.isList() ? node.items() : List.of(node);
    }

    private static List<Clause> clauses(ConfigNode node, ProbeSpec spec, String where, String key, Problems problems) {
        if (node.isMap()) {
            Clause c = clause(node, spec, where, key, problems);
            return c == null ? null : List.of(c);
        }
        if (node.isList()) {
            if (node.items().isEmpty()) {
                problems.add(node.location(), where + ": the list of alternatives is empty; write maps such as " + sample(spec)
                        + ", or '" + key + ": none' to drop the probe's default " + key + " rules");
                return null;
            }
            List<Clause> out = new ArrayList<>();
            boolean ok = true;
            for (ConfigNode item : node.items()) {
                if (!item.isMap()) {
                    problems.add(item.location(), where + ": each item of the list is a map of field: condition such as " + sample(spec)
                            + ", not " + item.describeKind());
                    ok = false;
                    continue;
                }
                Clause c = clause(item, spec, where, key, problems);
                ok &= c != null;
                if (c != null) {
                    out.add(c);
                }
            }
            return ok ? out : null;
        }
        problems.add(node.location(), where + ": expected a map of field: condition (all must hold), such as " + sample(spec)
                + ", or a list of such maps (any holds), or 'none'; not " + node.describeKind());
        return null;
    }

    private static Clause clause(ConfigNode map, ProbeSpec spec, String where, String key, Problems problems) {
        if (map.entries().isEmpty()) {
            problems.add(map.location(), where + ": no conditions; write e.g. " + sample(spec) + ", or '" + key
                    + ": none' to drop the probe's default " + key + " rules");
            return null;
        }
        List<Condition> conditions = new ArrayList<>();
        boolean ok = true;
        for (Map.Entry<String, ConfigNode> e : map.entries().entrySet()) {
            FieldSpec field = spec.field(e.getKey()).orElse(null);
            if (field == null) {
                problems.add(map.keyLocation(e.getKey()), where + ": unknown field '" + e.getKey() + "'" + fieldList(e.getKey(), spec));
                ok = false;
                continue;
            }
            Condition c = ConditionParser.parse(field, e.getValue(), where + ": " + field.name(), problems);
            ok &= c != null;
            if (c != null) {
                conditions.add(c);
            }
        }
        return ok ? new Clause(conditions) : null;
    }

    private static String fieldList(String name, ProbeSpec spec) {
        if (spec.fields().isEmpty()) {
            return "; probe " + spec.name() + " reports no fields, so it takes no warn/fail conditions";
        }
        List<String> names = spec.fields().stream().map(FieldSpec::name).toList();
        return Suggest.didYouMean(name, names) + "; probe " + spec.name() + " reports " + String.join(", ", names);
    }

    private static String sample(ProbeSpec spec) {
        if (spec.fields().isEmpty()) {
            return "{ field: \"> 0\" }";
        }
        FieldSpec f = spec.fields().get(0);
        return "{ " + f.name() + ": " + ConditionParser.example(f.unit()).replaceFirst(" or .*", "") + " }";
    }
}
