package dev.nhc.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a probe read about one entity (a GPU, a mount, the node): named fields whose values are
 * Long, Double, String or Boolean. A field the hardware does not have (NVML's NOT_SUPPORTED) is
 * simply absent, so rules over it are skipped rather than failed.
 */
public record Observation(String entity, Map<String, Object> fields) {

    public Observation {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    public Object get(String field) {
        return fields.get(field);
    }

    public static Builder of(String entity) {
        return new Builder(entity);
    }

    public static final class Builder {
        private final String entity;
        private final Map<String, Object> fields = new LinkedHashMap<>();

        private Builder(String entity) {
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

        public Observation build() {
            return new Observation(entity, fields);
        }
    }
}
