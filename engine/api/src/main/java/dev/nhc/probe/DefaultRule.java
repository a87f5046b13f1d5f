package dev.nhc.probe;

import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rule a probe ships so that {@code use: gpu.ecc} alone does the right thing: every verdict a
 * probe stands for is one of these, visible in {@code nhc list} and replaceable by the config
 * (a check's {@code warn:} replaces all default WARN rules of its probe, {@code fail:} all FAIL
 * rules; {@code none} drops them). UNKNOWN rules ("this reading means the check cannot decide")
 * are never replaced.
 *
 * <ul>
 *   <li>{@code condition} has the shape of a config's {@code warn:}/{@code fail:} value (a map = all
 *       of, a list = any of), e.g. {@code Map.of("used_percent", "> 95")}. A threshold may name a
 *       parameter of the check: {@code Map.of("gpu_count", "< {with.count}")}; a rule whose
 *       parameter the check does not set does not apply.</li>
 *   <li>{@code message} is a template: {@code {field}} is the observed value with its unit,
 *       {@code {entity}} the entity, {@code {with.name}} a parameter.</li>
 *   <li>{@code when}: parameter values this rule needs (e.g. {@code state: present}); the rule
 *       applies only to checks whose parameters have them.</li>
 *   <li>{@code remedyField}: a text field that carries the remedy for this entity (an XID's
 *       recommended action); {@code remedy} applies when the field is absent.</li>
 *   <li>{@code latched}: the rule stands for a fault the probe keeps until the node reboots or
 *       {@code nhc clear}; its findings are {@link dev.nhc.model.Finding#latched()}. A config's own
 *       {@code fail:} never is: only the probe knows what it latched.</li>
 * </ul>
 */
public record DefaultRule(Severity severity, Object condition, String message, Remedy remedy, SlurmState slurmState,
                          Map<String, Object> when, String remedyField, boolean latched) {

    public DefaultRule {
        remedy = remedy == null ? Remedy.NONE : remedy;
        when = when == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(when));
    }

    public DefaultRule(Severity severity, Object condition, String message, Remedy remedy, SlurmState slurmState) {
        this(severity, condition, message, remedy, slurmState, Map.of(), null, false);
    }

    public static DefaultRule fail(Object condition, String message) {
        return new DefaultRule(Severity.FAIL, condition, message, Remedy.NONE, null);
    }

    public static DefaultRule warn(Object condition, String message) {
        return new DefaultRule(Severity.WARN, condition, message, Remedy.NONE, null);
    }

    /** The check cannot decide for an entity whose reading matches (e.g. a state file that was lost). */
    public static DefaultRule unknown(Object condition, String message) {
        return new DefaultRule(Severity.UNKNOWN, condition, message, Remedy.NONE, null);
    }

    public DefaultRule remedy(Remedy r) {
        return new DefaultRule(severity, condition, message, r, slurmState, when, remedyField, latched);
    }

    public DefaultRule slurmState(SlurmState s) {
        return new DefaultRule(severity, condition, message, remedy, s, when, remedyField, latched);
    }

    /** Applies only when the check's parameter {@code param} is {@code value}. */
    public DefaultRule when(String param, Object value) {
        Map<String, Object> w = new LinkedHashMap<>(when);
        w.put(param, value);
        return new DefaultRule(severity, condition, message, remedy, slurmState, w, remedyField, latched);
    }

    /** The remedy is read from this text field of the observation (a remedy label such as reset-gpu). */
    public DefaultRule remedyFrom(String field) {
        return new DefaultRule(severity, condition, message, remedy, slurmState, when, field, latched);
    }

    /** Its findings are latched faults: they stay until the node reboots or {@code nhc clear}. */
    public DefaultRule latches() {
        return new DefaultRule(severity, condition, message, remedy, slurmState, when, remedyField, true);
    }
}
