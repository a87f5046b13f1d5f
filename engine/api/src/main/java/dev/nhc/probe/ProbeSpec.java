package dev.nhc.probe;

import dev.nhc.model.Entity;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything about a probe that does not need the system: its name, what it is ({@link Tags}),
 * what kind of entity it reports on, what it takes, what it observes, and its default rules —
 * the whole of its verdicts. {@code nhc list} prints this, and the config is validated against it.
 *
 * <p>{@code timeoutFails}: a probe that does not return in time means FAIL (a hung NVML call means a
 * sick GPU) rather than UNKNOWN. {@code runsLast}: the probe judges other checks' observations
 * (script.js), so it is started after the others and offered them as {@link PriorObservations}.
 * {@code paramsChecks}: checks across parameters ("exactly one of file or source"), run at load on
 * the converted {@code with:} once every parameter is valid on its own; each returns what is wrong,
 * or null.
 */
public record ProbeSpec(String name, String description, Set<String> tags, Entity.Kind entityKind, String entities,
                        List<ParamSpec<?>> params, List<FieldSpec> fields, List<DefaultRule> defaultRules,
                        boolean timeoutFails, boolean runsLast, List<Function<Params, String>> paramsChecks) {

    public ProbeSpec {
        tags = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(tags));
        params = List.copyOf(params);
        fields = List.copyOf(fields);
        defaultRules = List.copyOf(defaultRules);
        paramsChecks = List.copyOf(paramsChecks);
    }

    /** What is wrong across the given parameters, one sentence each (empty when nothing is). */
    public List<String> paramsProblems(Params p) {
        List<String> out = new ArrayList<>();
        for (Function<Params, String> c : paramsChecks) {
            String problem = c.apply(p);
            if (problem != null) {
                out.add(problem);
            }
        }
        return out;
    }

    public boolean hasTag(String tag) {
        return tags.contains(tag);
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

    public Optional<ParamSpec<?>> param(String paramName) {
        for (ParamSpec<?> p : params) {
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
        private final Set<String> tags = new LinkedHashSet<>();
        private Entity.Kind entityKind = Entity.Kind.NODE;
        private String entities = "node";
        private final List<ParamSpec<?>> params = new ArrayList<>();
        private final List<FieldSpec> fields = new ArrayList<>();
        private final List<DefaultRule> rules = new ArrayList<>();
        private boolean timeoutFails;
        private boolean runsLast;
        private final List<Function<Params, String>> paramsChecks = new ArrayList<>();

        private Builder(String name, String description) {
            this.name = name;
            this.description = description;
        }

        /** What this probe is about ({@link Tags}). */
        public Builder tags(String... words) {
            tags.addAll(List.of(words));
            return this;
        }

        /** The kind of entity it reports on, and for {@code nhc list} what one entity is ("one per GPU"). */
        public Builder entities(Entity.Kind kind, String description) {
            this.entityKind = kind;
            this.entities = description;
            return this;
        }

        public Builder param(ParamSpec<?> p) {
            params.add(p);
            return this;
        }

        public Builder field(String fieldName, Unit unit, String fieldDescription) {
            fields.add(new FieldSpec(fieldName, unit, fieldDescription));
            return this;
        }

        /**
         * These declared fields may be absent from an entity the probe saw, and a rule over one that
         * is absent is not judged ("not supported here") rather than {@code unknown}.
         */
        public Builder optional(String... fieldNames) {
            for (String n : fieldNames) {
                replace(n, FieldSpec::asOptional);
            }
            return this;
        }

        /**
         * These declared fields are reported for every entity of this kind the probe sees (call
         * again for more kinds); entities of other kinds need not have them. Not called: of every
         * kind.
         */
        public Builder reportedFor(Entity.Kind kind, String... fieldNames) {
            for (String n : fieldNames) {
                replace(n, f -> f.alsoFor(kind));
            }
            return this;
        }

        /**
         * These declared fields are reported on every observation that reports {@code field} (the
         * field that marks an entity's role, itself usually optional): a kernel log pattern's
         * matches beside its severity, a script's exit code beside the program it ran.
         */
        public Builder reportedWith(String field, String... fieldNames) {
            replace(field, f -> f);
            for (String n : fieldNames) {
                replace(n, f -> f.reportedWith(field));
            }
            return this;
        }

        private void replace(String fieldName, java.util.function.UnaryOperator<FieldSpec> change) {
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).name().equals(fieldName)) {
                    fields.set(i, change.apply(fields.get(i)));
                    return;
                }
            }
            throw new IllegalArgumentException("probe " + name + " declares no field '" + fieldName + "'");
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

        /** A check across parameters, run at load: returns what is wrong with the params, or null. */
        public Builder paramsCheck(Function<Params, String> check) {
            paramsChecks.add(check);
            return this;
        }

        public ProbeSpec build() {
            return new ProbeSpec(name, description, tags, entityKind, entities, params, fields, rules, timeoutFails, runsLast,
                    paramsChecks);
        }
    }
}
