package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One nhc check as the import writes it: probe, parameters, and the rules that replace the probe's
 * defaults. A translated LBNL check fails exactly when LBNL NHC's function would, so its rules are
 * fail rules only ({@code warn: none} where the probe has default warnings), and a check that could
 * not decide counts as a failure ({@code on_unknown: fail}), as an LBNL function that errs fails.
 */
public final class NhcCheck {
    private final String name;
    private final String use;
    private final Map<String, Object> with = new LinkedHashMap<>();
    private final List<Map<String, String>> failAny = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private boolean noWarnings;
    private String timeout;

    public NhcCheck(String name, String use) {
        this.name = name;
        this.use = use;
    }

    public NhcCheck with(String key, Object value) {
        with.put(key, value);
        return this;
    }

    /** Adds one way to fail: the check fails when all of these conditions hold, or any other added map does. */
    public NhcCheck failWhen(String field, String condition) {
        failAny.add(Map.of(field, condition));
        return this;
    }

    public NhcCheck noWarnings() {
        noWarnings = true;
        return this;
    }

    public NhcCheck timeout(String t) {
        timeout = t;
        return this;
    }

    public NhcCheck note(String text) {
        notes.add(text);
        return this;
    }

    public String name() {
        return name;
    }

    public String use() {
        return use;
    }

    public Map<String, Object> with() {
        return with;
    }

    public List<Map<String, String>> failAny() {
        return failAny;
    }

    public boolean hasNoWarnings() {
        return noWarnings;
    }

    public String timeout() {
        return timeout;
    }

    public List<String> notes() {
        return notes;
    }
}
