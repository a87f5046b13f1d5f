package dev.nhc.probe;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A check's {@code with:} values, already validated and converted by the config loader against the
 * probe's {@link ParamSpec}s (durations are {@link Duration}, sizes and integers {@link Long},
 * lists {@link List}), with the spec's defaults filled in.
 */
public final class Params {
    private final Map<String, Object> values;

    public Params(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public static Params empty() {
        return new Params(Map.of());
    }

    public boolean has(String name) {
        return values.get(name) != null;
    }

    public Object raw(String name) {
        return values.get(name);
    }

    public String string(String name) {
        Object v = values.get(name);
        return v == null ? null : v.toString();
    }

    public Long integer(String name) {
        Object v = values.get(name);
        return v == null ? null : ((Number) v).longValue();
    }

    public Double number(String name) {
        Object v = values.get(name);
        return v == null ? null : ((Number) v).doubleValue();
    }

    public Boolean bool(String name) {
        return (Boolean) values.get(name);
    }

    public Duration duration(String name) {
        return (Duration) values.get(name);
    }

    @SuppressWarnings("unchecked")
    public List<String> strings(String name) {
        Object v = values.get(name);
        return v == null ? List.of() : (List<String>) v;
    }

    @SuppressWarnings("unchecked")
    public List<Long> integers(String name) {
        Object v = values.get(name);
        return v == null ? List.of() : (List<Long>) v;
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> map(String name) {
        Object v = values.get(name);
        return v == null ? Map.of() : (Map<String, Object>) v;
    }

    public Map<String, Object> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
