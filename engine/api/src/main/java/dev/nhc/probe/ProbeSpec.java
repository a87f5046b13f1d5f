package dev.nhc.probe;

import java.util.List;
import java.util.Optional;

/**
 * Everything about a probe that does not need the system: its name, what it takes, what it
 * observes, its default rules. {@code nhc list} prints this, and the config is validated against it.
 * {@code timeoutFails}: whether a probe that does not return in time means FAIL (a hung NVML call
 * means a sick GPU) rather than UNKNOWN. {@code runsLast}: the probe judges other checks' observations
 * (script.js), so the runner starts it after the others and offers them as {@link PriorObservations}.
 */
public record ProbeSpec(String name, String description, String entities, List<ParamSpec> params,
                        List<FieldSpec> fields, List<DefaultRule> defaultRules, boolean timeoutFails, boolean runsLast) {

    public ProbeSpec {
        params = List.copyOf(params);
        fields = List.copyOf(fields);
        defaultRules = List.copyOf(defaultRules);
    }

    public ProbeSpec(String name, String description, String entities, List<ParamSpec> params,
                     List<FieldSpec> fields, List<DefaultRule> defaultRules, boolean timeoutFails) {
        this(name, description, entities, params, fields, defaultRules, timeoutFails, false);
    }

    // Loops, not streams: config validation looks fields up for every condition and placeholder of
    // every default rule, and a stream pipeline is costly code while the JVM still interprets.
    public Optional<FieldSpec> field(String fieldName) {
        for (FieldSpec f : fields) {
            if (f.name().equals(fieldName)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    public Optional<ParamSpec> param(String paramName) {
        for (ParamSpec p : params) {
            if (p.name().equals(paramName)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public static Builder builder(String name, String description) {
        return new Builder(name, description);
    }

    public static final class Builder {
        private final String name;
        private final String description;
        private String entities = "node";
        private final java.util.List<ParamSpec> params = new java.util.ArrayList<>();
        private final java.util.List<FieldSpec> fields = new java.util.ArrayList<>();
        private final java.util.List<DefaultRule> rules = new java.util.ArrayList<>();
        private boolean timeoutFails;
        private boolean runsLast;

        private Builder(String name, String description) {
            this.name = name;
            this.description = description;
        }

        /** What one entity of this probe is, for {@code nhc list} ("one per GPU", "the mount"). */
        public Builder entities(String e) {
            this.entities = e;
            return this;
        }

        public Builder param(ParamSpec p) {
            params.add(p);
            return this;
        }

        public Builder field(String fieldName, dev.nhc.units.Unit unit, String fieldDescription) {
            fields.add(new FieldSpec(fieldName, unit, fieldDescription));
            return this;
        }

        public Builder rule(DefaultRule r) {
            rules.add(r);
            return this;
        }

        public Builder timeoutFails() {
            this.timeoutFails = true;
            return this;
        }

        public Builder runsLast() {
            this.runsLast = true;
            return this;
        }

        public ProbeSpec build() {
            return new ProbeSpec(name, description, entities, params, fields, rules, timeoutFails, runsLast);
        }
    }
}
