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
 *
 * <p>{@code notes} are comments for the reader of the YAML; {@code differences} are where nhc's
 * check is not exactly LBNL NHC's, which the import also says on stderr with the line.
 */
public final class NhcCheck {
    private final String name;
    private final String use;
    private final Map<String, Object> with = new LinkedHashMap<>();
    private final List<Map<String, String>> failAny = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> differences = new ArrayList<>();
    private boolean noWarnings;
    private boolean noFailures;
    private String timeout;
    private String onUnknown = "fail";

    public NhcCheck(String name, String use) {
        this.name = name;
        this.use = use;
    }

    public NhcCheck with(String key, Object value) {
        with.put(key, value);
        return this;
    }

    /** Adds one way to fail: the check fails when this condition holds, or any other added one does. */
    public NhcCheck failWhen(String field, String condition) {
        failAny.add(Map.of(field, condition));
        return this;
    }

    /** Adds one way to fail made of several conditions that must all hold (in this order, as written). */
    public NhcCheck failWhenAll(Map<String, String> conditions) {
        failAny.add(new LinkedHashMap<>(conditions));
        return this;
    }

    public NhcCheck noWarnings() {
        noWarnings = true;
        return this;
    }

    /** fail: none — the check only warns, as an LBNL function that only logs never fails. */
    public NhcCheck noFailures() {
        noFailures = true;
        return this;
    }

    /** What "could not decide" counts as; fail unless the LBNL function passes when it cannot read (then ignore). */
    public NhcCheck onUnknown(String o) {
        onUnknown = o;
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

    /** Where this check's meaning is not LBNL NHC's: a comment in the YAML and a line on stderr. */
    public NhcCheck differs(String text) {
        differences.add(text);
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

    public boolean hasNoFailures() {
        return noFailures;
    }

    public String onUnknown() {
        return onUnknown;
    }

    public String timeout() {
        return timeout;
    }

    public List<String> notes() {
        return notes;
    }

    public List<String> differences() {
        return differences;
    }
}
