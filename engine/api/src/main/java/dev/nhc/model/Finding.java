package dev.nhc.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One judgement about one entity: the unit that reaches reports, Slurm reasons and dstack incidents.
 * {@code slurmState} is only meaningful for FAIL findings; null means "the config's default".
 * {@code latched}: the rule that made it stands for a fault the probe latched until the node reboots
 * (a fatal XID, a fatal fabric error): the only kind of fault Slurm's repair ladder reboots for.
 * Findings are made by the rules and the severity policy, never by a probe.
 */
public record Finding(String check, Entity entity, Severity severity, String message, Remedy remedy,
                      SlurmState slurmState, Map<String, Object> observed, boolean latched) {

    public Finding {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        remedy = remedy == null ? Remedy.NONE : remedy;
        observed = observed == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(observed));
    }

    /** A finding that is not latched. */
    public Finding(String check, Entity entity, Severity severity, String message, Remedy remedy, SlurmState slurmState,
                   Map<String, Object> observed) {
        this(check, entity, severity, message, remedy, slurmState, observed, false);
    }

    public static Finding of(String check, Entity entity, Severity severity, String message) {
        return new Finding(check, entity, severity, message, Remedy.NONE, null, Map.of());
    }

    public Finding withCheck(String name) {
        return new Finding(name, entity, severity, message, remedy, slurmState, observed, latched);
    }

    public Finding withSeverity(Severity s) {
        return new Finding(check, entity, s, message, remedy, slurmState, observed, latched);
    }

    public Finding withMessage(String m) {
        return new Finding(check, entity, severity, m, remedy, slurmState, observed, latched);
    }

    public Finding withRemedy(Remedy r) {
        return new Finding(check, entity, severity, message, r, slurmState, observed, latched);
    }

    public Finding withSlurmState(SlurmState s) {
        return new Finding(check, entity, severity, message, remedy, s, observed, latched);
    }

    public Finding withLatched(boolean l) {
        return new Finding(check, entity, severity, message, remedy, slurmState, observed, l);
    }

    public Finding withObserved(Map<String, Object> o) {
        return new Finding(check, entity, severity, message, remedy, slurmState, o, latched);
    }
}
