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

/**
 * Compiles a check's {@code warn:}/{@code fail:}/{@code message:} and its probe's default rules
 * into a {@link CompiledCheck}. A config's {@code fail:} replaces every default FAIL rule of the
 * probe and {@code warn:} every default WARN rule; {@code fail: none} / {@code warn: none} drop
 * them without a replacement.
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
            template = MessageTemplate.parse(check.message(), spec, at, label + " message", problems);
        }
        if (problems.list().size() > before) {
            return null;
        }
        return new CompiledCheck(spec, rules, template);
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
        List<Clause> clauses = clauses(configured, spec, label + " " + key, key, problems);
        if (clauses != null) {
            out.add(new Rule(severity, clauses, null, null, null));
        }
        return out;
    }

    /** A default rule that does not compile is a bug of the probe; it is reported against the check that uses it. */
    private static void addDefault(DefaultRule d, CheckConfig check, ProbeSpec spec, Problems problems, List<Rule> out) {
        Problems own = new Problems();
        String where = "probe " + spec.name() + " default " + d.severity().label() + " rule";
        ConfigNode node = ConfigNode.fromPlain(d.condition(), check.location());
        List<Clause> clauses = clauses(node, spec, where, d.severity().label(), own);
        MessageTemplate template = d.message() == null ? null : MessageTemplate.parse(d.message(), spec, check.location(), where + " message", own);
        if (!own.isEmpty()) {
            own.list().forEach(p -> problems.add(check.location(), "check '" + check.name() + "': " + p.message() + " (a bug of the probe)"));
            return;
        }
        out.add(new Rule(d.severity(), clauses, template, d.remedy(), d.slurmState()));
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
            return "; probe " + spec.name() + " reports no fields (it decides its findings itself), so it takes no warn/fail conditions";
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
