package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
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
 * A check's rules ready to run: FAIL rules first, then WARN, then any UNKNOWN defaults; the first
 * clause that holds decides the entity's finding.
 */
final class CompiledCheck {
    /** Observations with at most this many fields are attached whole to their finding. */
    private static final int SMALL = 8;
    /** How many values a PASS summary shows. */
    private static final int SUMMARY = 4;
    private static final String NODE = "node";

    private final ProbeSpec spec;
    private final List<Rule> rules;
    private final MessageTemplate template;
    private final List<FieldSpec> referenced;
    private final Set<String> fieldsRead;

    CompiledCheck(ProbeSpec spec, List<Rule> rules, MessageTemplate template) {
        this.spec = spec;
        this.rules = List.copyOf(rules);
        this.template = template;
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
        }
        if (template != null) {
            template.addFieldNames(read);
        }
        this.fieldsRead = Collections.unmodifiableSet(read);
    }

    ProbeSpec spec() {
        return spec;
    }

    List<Rule> rules() {
        return rules;
    }

    /** Every field a condition tests or a message prints. */
    Set<String> fieldsRead() {
        return fieldsRead;
    }

    /**
     * The finding for one entity. Clauses over fields the observation lacks are skipped. When no
     * clause could be judged at all: UNKNOWN if the observation carries no field whatsoever (the
     * probe saw the entity but could read nothing about it), otherwise PASS — a field that is
     * merely absent means "not supported on this hardware" (NVML's NOT_SUPPORTED), and turning
     * that into UNKNOWN would make every older GPU noisy for a rule it cannot have.
     */
    Finding judge(Observation observation, CheckConfig check) {
        boolean judged = false;
        for (Rule rule : rules) {
            for (Clause clause : rule.clauses()) {
                Truth t = clause.test(observation);
                if (t == Truth.YES) {
                    return fired(rule, clause, observation, check);
                }
                judged |= t == Truth.NO;
            }
        }
        if (!judged && !rules.isEmpty()) {
            List<String> missing = missing(observation);
            if (observation.fields().isEmpty()) {
                return new Finding(check.name(), observation.entity(), Severity.UNKNOWN,
                        "field " + missing.get(0) + " not reported for " + observation.entity(), Remedy.NONE, null, Map.of());
            }
            return new Finding(check.name(), observation.entity(), Severity.PASS,
                    "no rule applies: " + String.join(", ", missing) + " not reported", Remedy.NONE, null, observed(observation, List.of()));
        }
        return new Finding(check.name(), observation.entity(), Severity.PASS, summary(observation), Remedy.NONE, null,
                observed(observation, referenced));
    }

    private Finding fired(Rule rule, Clause clause, Observation observation, CheckConfig check) {
        MessageTemplate t = template != null ? template : rule.template();
        String message = t != null ? t.render(observation, check.name(), clause) : automatic(observation, clause);
        Remedy remedy = check.remedy() != null ? check.remedy() : rule.remedy();
        SlurmState slurm = null;
        if (rule.severity() == Severity.FAIL) {
            slurm = check.slurmState() != null ? check.slurmState() : rule.slurmState();
        }
        List<FieldSpec> named = clause.conditions().stream().map(Condition::field).toList();
        return new Finding(check.name(), observation.entity(), rule.severity(), message, remedy, slurm, observed(observation, named));
    }

    /**
     * "/scratch: used_percent 97.2% > 95%". The entity leads because a Slurm reason carries only
     * the check and the message; the whole node ("node") goes without saying.
     */
    private static String automatic(Observation observation, Clause clause) {
        String what = clause.describe(observation);
        String entity = observation.entity();
        return entity == null || entity.isEmpty() || NODE.equals(entity) ? what : entity + ": " + what;
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
