package dev.nhc.probe;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A check's {@code with:} values, already validated and converted by the config loader against the
 * probe's {@link ParamSpec}s. Read them through the spec: {@code SPEC_PARAM.get(params)} is typed
 * and applies the declared default, so no call site repeats a default the spec declares.
 */
public final class Params {
    private final Map<String, Object> values;
    private final Set<String> given;

    /** Values as converted; {@code given} names the keys the config wrote (the rest are defaults). */
    public Params(Map<String, Object> values, Set<String> given) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.given = Set.copyOf(given);
    }

    public Params(Map<String, Object> values) {
        this(values, values.keySet());
    }

    public static Params empty() {
        return new Params(Map.of());
    }

    public <T> T get(ParamSpec<T> spec) {
        return spec.get(this);
    }

    /** Whether a value is present (given or defaulted). */
    public boolean has(String name) {
        return values.get(name) != null;
    }

    /** Whether the config wrote this key itself. */
    public boolean given(String name) {
        return given.contains(name) && values.get(name) != null;
    }

    /** The converted value or null; for code that handles values generically (reports, overrides). */
    public Object raw(String name) {
        return values.get(name);
    }

    public Map<String, Object> asMap() {
        return values;
    }

    /** These params with one value replaced (e.g. a replay pointing a check at a captured log). */
    public Params with(String name, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(values);
        m.put(name, value);
        java.util.Set<String> g = new java.util.LinkedHashSet<>(given);
        g.add(name);
        return new Params(m, g);
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
