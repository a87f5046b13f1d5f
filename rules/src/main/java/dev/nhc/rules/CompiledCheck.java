package dev.nhc.rules;

import dev.nhc.engine.plan.CompiledRules;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A check's rules ready to run: FAIL rules first, then WARN, then UNKNOWN defaults; the first
 * clause that holds decides the entity's finding. {@code remedy} and {@code slurmState} are the
 * check's own overrides (null: the rule's).
 */
final class CompiledCheck implements CompiledRules {
    /** Observations with at most this many fields are attached whole to their finding. */
    private static final int SMALL = 8;
    /** How many values a PASS summary shows. */
    private static final int SUMMARY = 4;

    private final ProbeSpec spec;
    private final List<Rule> rules;
    private final MessageTemplate template;
    private final Remedy remedy;
    private final SlurmState slurmState;
    private final List<FieldSpec> referenced;
    private final Set<String> fieldsRead;
    /** Per field, the limits its FAIL and WARN rules hold it to: "fail if > 98%, warn if > 90%". */
    private final Map<String, String> limits;

    CompiledCheck(ProbeSpec spec, List<Rule> rules, MessageTemplate template, Remedy remedy, SlurmState slurmState) {
        this.spec = spec;
        List<Rule> ordered = new ArrayList<>(rules);
        // FAIL before WARN before UNKNOWN: the worst rule that holds decides.
        ordered.sort((a, b) -> Integer.compare(order(a.severity()), order(b.severity())));
        this.rules = List.copyOf(ordered);
        this.template = template;
        this.remedy = remedy;
        this.slurmState = slurmState;
        // By name: hashing the FieldSpec record itself would bootstrap its generated hashCode
        // (ObjectMethods), ~10 ms of every one-shot run on a cold JVM.
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        for (Rule r : rules) {
            for (Clause c : r.clauses()) {
                for (Condition cond : c.conditions()) {
                    fields.putIfAbsent(cond.field().name(), cond.field());
                }
            }
        }
        this.referenced = List.copyOf(fields.values());
        this.limits = limits(this.rules);
        Set<String> read = new LinkedHashSet<>(fields.keySet());
        for (Rule r : rules) {
            if (r.template() != null) {
                r.template().addFieldNames(read);
            }
            if (r.remedyField() != null) {
                read.add(r.remedyField());
            }
        }
        if (template != null) {
            template.addFieldNames(read);
        }
        this.fieldsRead = Collections.unmodifiableSet(read);
    }

    /**
     * Per field, the limits its FAIL and WARN rules hold it to: "fail if < 1.0 KiB or > 10.0 TiB,
     * warn if < 256.0 MiB". A map of several conditions is shown whole at its first field ("overall 0
     * (fail if >= 20 and incidents 0)"): a part of it alone would misstate the rule.
     */
    private static Map<String, String> limits(List<Rule> ordered) {
        Map<String, Map<String, List<String>>> by = new LinkedHashMap<>();
        int combined = 0;
        for (Rule r : ordered) {
            if (r.severity() != Severity.FAIL && r.severity() != Severity.WARN) {
                continue;
            }
            for (Clause c : r.clauses()) {
                Condition first = c.conditions().get(0);
                StringBuilder limit = new StringBuilder(first.written());
                for (Condition more : c.conditions().subList(1, c.conditions().size())) {
                    limit.append(" and ").append(more.field().name()).append(' ').append(more.written());
                }
                // Limits of one severity on the field alone read as alternatives; a whole map stands apart.
                String group = r.severity().label() + (c.conditions().size() == 1 ? "" : "#" + combined++);
                List<String> l = by.computeIfAbsent(first.field().name(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(group, k -> new ArrayList<>());
                if (!l.contains(limit.toString())) {
                    l.add(limit.toString());
                }
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        by.forEach((field, groups) -> {
            StringBuilder b = new StringBuilder();
            groups.forEach((group, limits) -> b.append(b.length() == 0 ? "" : ", ").append(group.replaceFirst("#.*", "")).append(" if ")
                    .append(String.join(" or ", limits)));
            out.put(field, b.toString());
        });
        return out;
    }

    private static int order(Severity s) {
        return switch (s) {
            case FAIL -> 0;
            case WARN -> 1;
            case UNKNOWN -> 2;
            case PASS -> 3;
        };
    }

    ProbeSpec spec() {
        return spec;
    }

    List<Rule> rules() {
        return rules;
    }

    @Override
    public Set<String> fieldsRead() {
        return fieldsRead;
    }

    @Override
    public List<Finding> judge(List<Observation> observations, String checkName) {
        List<Finding> out = new ArrayList<>(observations.size());
        for (Observation o : observations) {
            out.add(judge(o, checkName));
        }
        return out;
    }

    /**
     * The finding for one entity: the first clause that holds, FAIL rules first. When none holds
     * but a rule could not be judged because a field the probe declares for this entity is
     * absent (or not a number where one is compared), UNKNOWN naming the field and the entity:
     * silence is not health. A clause over an optional field that is absent is skipped (NVML's
     * NOT_SUPPORTED: an older GPU has no such value); when nothing could be judged at all: UNKNOWN
     * if the observation carries no field whatsoever (the probe saw the entity but could read
     * nothing about it), otherwise PASS.
     */
    Finding judge(Observation observation, String checkName) {
        boolean judged = false;
        Rule missingRule = null;
        Clause missingClause = null;
        for (Rule rule : rules) {
            for (Clause clause : rule.clauses()) {
                Truth t = clause.test(observation);
                if (t == Truth.YES) {
                    return fired(rule, clause, observation, checkName);
                }
                judged |= t == Truth.NO;
                if (t == Truth.MISSING && missingRule == null) {
                    missingRule = rule;
                    missingClause = clause;
                }
            }
        }
        if (missingRule != null) {
            return new Finding(checkName, observation.entity(), Severity.UNKNOWN, missingClause.missing(observation) + " (the "
                    + missingRule.severity().label() + " rule " + missingClause.written() + " needs it)", Remedy.NONE, null,
                    observed(observation, List.of()));
        }
        if (!judged && !rules.isEmpty()) {
            List<String> missing = missing(observation);
            if (observation.fields().isEmpty()) {
                return new Finding(checkName, observation.entity(), Severity.UNKNOWN,
                        "field " + missing.get(0) + " not reported for " + observation.entity().label(), Remedy.NONE, null, Map.of());
            }
            return new Finding(checkName, observation.entity(), Severity.PASS,
                    "no rule applies: " + String.join(", ", missing) + " not reported", Remedy.NONE, null, observed(observation, List.of()));
        }
        return new Finding(checkName, observation.entity(), Severity.PASS, summary(observation), Remedy.NONE, null,
                observed(observation, referenced));
    }

    private Finding fired(Rule rule, Clause clause, Observation observation, String checkName) {
        MessageTemplate t = template != null ? template : rule.template();
        String message = t != null ? t.render(observation, checkName, clause) : automatic(observation, clause);
        Remedy r = remedy != null ? remedy : ruleRemedy(rule, observation);
        SlurmState slurm = null;
        if (rule.severity() == Severity.FAIL) {
            slurm = slurmState != null ? slurmState : rule.slurmState();
        }
        List<FieldSpec> named = new ArrayList<>();
        for (Condition c : clause.conditions()) {
            named.add(c.field());
        }
        return new Finding(checkName, observation.entity(), rule.severity(), message, r, slurm, observed(observation, named), rule.latched());
    }

    /** The rule's remedy, or the one the observation carries in the rule's remedy field (an XID's recommended action). */
    private static Remedy ruleRemedy(Rule rule, Observation observation) {
        if (rule.remedyField() != null && observation.get(rule.remedyField()) instanceof String label) {
            try {
                return Remedy.parse(label);
            } catch (IllegalArgumentException e) {
                // a probe reporting a label nhc does not know: the rule's own remedy applies
            }
        }
        return rule.remedy() == null ? Remedy.NONE : rule.remedy();
    }

    /**
     * "/scratch: used_percent 97.2% > 95%". The entity leads because a Slurm reason carries only
     * the check and the message; the whole node goes without saying.
     */
    private static String automatic(Observation observation, Clause clause) {
        String what = clause.describe(observation);
        return observation.entity().isNode() ? what : observation.entity().label() + ": " + what;
    }

    /** The fields that decided, then everything else when the observation is small enough to show whole. */
    private static Map<String, Object> observed(Observation observation, List<FieldSpec> first) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (FieldSpec f : first) {
            Object v = observation.get(f.name());
            if (v != null) {
                out.put(f.name(), v);
            }
        }
        if (observation.fields().size() <= SMALL) {
            observation.fields().forEach(out::putIfAbsent);
        }
        return out;
    }

    /**
     * What a PASS compared, so that a pass is never just a word: "/: used_percent 42% (fail if > 98%,
     * warn if > 90%), mounted true (fail if false)" — the values the FAIL and WARN rules looked at,
     * each with the limits it was held to.
     */
    private String summary(Observation observation) {
        StringBuilder sb = new StringBuilder();
        if (!observation.entity().isNode()) {
            sb.append(observation.entity().label()).append(": ");
        }
        int shown = 0;
        for (FieldSpec f : referenced) {
            Object v = observation.get(f.name());
            if (v == null) {
                continue;
            }
            if (shown == SUMMARY) {
                sb.append(", …");
                break;
            }
            sb.append(shown == 0 ? "" : ", ").append(f.name()).append(' ').append(f.unit().format(v));
            String heldTo = limits.get(f.name());
            if (heldTo != null) {
                sb.append(" (").append(heldTo).append(')');
            }
            shown++;
        }
        return shown == 0 ? sb.append("ok").toString() : sb.toString();
    }

    private List<String> missing(Observation observation) {
        List<String> out = new ArrayList<>();
        for (FieldSpec f : referenced) {
            if (observation.get(f.name()) == null) {
                out.add(f.name());
            }
        }
        if (out.isEmpty()) {
            // Every field is there but none had a usable type (a probe reporting text for a number).
            referenced.forEach(f -> out.add(f.name()));
        }
        return out;
    }
}
