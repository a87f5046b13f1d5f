package dev.nhc.probe;

import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;

/**
 * A rule a probe ships so that {@code use: gpu.ecc} alone does the right thing. {@code condition}
 * has the same shape as a config's {@code warn:}/{@code fail:} value (a map = all of, a list = any
 * of, e.g. {@code Map.of("used_percent", "> 95")}), so the rules engine reads both the same way.
 * A config's {@code warn:} replaces all default WARN rules of its probe, {@code fail:} all FAIL rules.
 * {@code message} is a template: {@code {field}} is replaced by the observed value with its unit,
 * {@code {entity}} by the entity.
 */
public record DefaultRule(Severity severity, Object condition, String message, Remedy remedy, SlurmState slurmState) {

    public static DefaultRule fail(Object condition, String message) {
        return new DefaultRule(Severity.FAIL, condition, message, Remedy.NONE, null);
    }

    public static DefaultRule warn(Object condition, String message) {
        return new DefaultRule(Severity.WARN, condition, message, Remedy.NONE, null);
    }

    public DefaultRule remedy(Remedy r) {
        return new DefaultRule(severity, condition, message, r, slurmState);
    }

    public DefaultRule slurmState(SlurmState s) {
        return new DefaultRule(severity, condition, message, remedy, s);
    }
}
