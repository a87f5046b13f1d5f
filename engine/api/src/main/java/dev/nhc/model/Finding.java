package dev.nhc.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One judgement about one entity: the unit that reaches reports, Slurm reasons and dstack incidents.
 * {@code slurmState} is only meaningful for FAIL findings; null means "the config's default".
 * Findings are made by the rules and the severity policy, never by a probe.
 */
public record Finding(String check, Entity entity, Severity severity, String message, Remedy remedy,
                      SlurmState slurmState, Map<String, Object> observed) {

    public Finding {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        remedy = remedy == null ? Remedy.NONE : remedy;
        observed = observed == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(observed));
    }

    public static Finding of(String check, Entity entity, Severity severity, String message) {
        return new Finding(check, entity, severity, message, Remedy.NONE, null, Map.of());
    }

    public Finding withCheck(String name) {
        return new Finding(name, entity, severity, message, remedy, slurmState, observed);
    }

    public Finding withSeverity(Severity s) {
        return new Finding(check, entity, s, message, remedy, slurmState, observed);
    }

    public Finding withMessage(String m) {
        return new Finding(check, entity, severity, m, remedy, slurmState, observed);
    }

    public Finding withRemedy(Remedy r) {
        return new Finding(check, entity, severity, message, r, slurmState, observed);
    }

    public Finding withSlurmState(SlurmState s) {
        return new Finding(check, entity, severity, message, remedy, s, observed);
    }

    public Finding withObserved(Map<String, Object> o) {
        return new Finding(check, entity, severity, message, remedy, slurmState, o);
    }
}
