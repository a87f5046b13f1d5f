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
     * The finding for one entity. Clauses over fields the observation lacks are skipped. When no
     * clause could be judged at all: UNKNOWN if the observation carries no field whatsoever (the
     * probe saw the entity but could read nothing about it), otherwise PASS — a field that is
     * merely absent means "not supported on this hardware" (NVML's NOT_SUPPORTED), and turning
     * that into UNKNOWN would make every older GPU noisy for a rule it cannot have.
     */
    Finding judge(Observation observation, String checkName) {
        boolean judged = false;
        for (Rule rule : rules) {
            for (Clause clause : rule.clauses()) {
                Truth t = clause.test(observation);
                if (t == Truth.YES) {
                    return fired(rule, clause, observation, checkName);
                }
                judged |= t == Truth.NO;
            }
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

    /** "ok: used_percent 42%, free_bytes 120.3 GiB": the values the rules looked at. */
    private String summary(Observation observation) {
        StringBuilder sb = new StringBuilder("ok");
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
            sb.append(shown == 0 ? ": " : ", ").append(f.name()).append(' ').append(f.unit().format(v));
            shown++;
        }
        return sb.toString();
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
