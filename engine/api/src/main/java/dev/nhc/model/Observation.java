package dev.nhc.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a probe read about one entity (a GPU, a mount, the node): named fields whose values are
 * Long, Double, String or Boolean. A field the hardware does not have (NVML's NOT_SUPPORTED) is
 * simply absent, so rules over it are skipped rather than failed.
 *
 * <p>{@code problem} is non-null when the probe saw the entity but could not read it (a file it
 * may not open, a tool that printed nothing it understands): the check then cannot decide for that
 * entity, which the severity policy turns into UNKNOWN. A probe never decides severity itself.
 */
public record Observation(Entity entity, Map<String, Object> fields, String problem) {

    public Observation {
        if (entity == null) {
            throw new IllegalArgumentException("an observation needs an entity");
        }
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    public Observation(Entity entity, Map<String, Object> fields) {
        this(entity, fields, null);
    }

    public Object get(String field) {
        return fields.get(field);
    }

    public boolean readable() {
        return problem == null;
    }

    public static Builder of(Entity entity) {
        return new Builder(entity);
    }

    /** The entity is there but could not be read; {@code why} says what could not be read and why. */
    public static Observation unreadable(Entity entity, String why) {
        return new Observation(entity, Map.of(), why == null || why.isBlank() ? "could not be read" : why);
    }

    /** This observation with these fields added (replacing equal names); its problem, if any, is kept. */
    public Observation with(Map<String, Object> more) {
        Map<String, Object> m = new LinkedHashMap<>(fields);
        m.putAll(more);
        return new Observation(entity, m, problem);
    }

    public static final class Builder {
        private final Entity entity;
        private final Map<String, Object> fields = new LinkedHashMap<>();
        private String problem;

        private Builder(Entity entity) {
            this.entity = entity;
        }

        /** Null values are dropped: "not available" is expressed by absence. */
        public Builder put(String field, Object value) {
            if (value != null) {
                if (value instanceof Integer i) {
                    value = i.longValue();
                } else if (value instanceof Float f) {
                    value = f.doubleValue();
                }
                fields.put(field, value);
            }
            return this;
        }

        /** The entity could not be read (fully); fields put so far are kept for the report. */
        public Builder problem(String why) {
            this.problem = why;
            return this;
        }

        public Observation build() {
            return new Observation(entity, fields, problem);
        }
    }
}
