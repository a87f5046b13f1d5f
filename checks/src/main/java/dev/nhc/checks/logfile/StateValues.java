package dev.nhc.checks.logfile;

import dev.nhc.probe.ProbeState;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A reader's cursor values read back from a check's state, each checked. State may come from an
 * older nhc, a hand edit or a damaged disk, and a value out of range must never blind the reader.
 * A value that is present but invalid is removed from the state and said in {@link #warnings()},
 * one sentence each, so that the check can note the reset; the caller goes on without it.
 */
public final class StateValues {
    /** What a boot id or a journal cursor may hold: printable ASCII without spaces. */
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]+");

    private final ProbeState state;
    private final List<String> warnings = new ArrayList<>();

    public StateValues(ProbeState state) {
        this.state = state;
    }

    public ProbeState state() {
        return state;
    }

    /** What was wrong in the state, one sentence each, for the report. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** Adds a sentence to {@link #warnings()}: a value the caller found unusable in another way. */
    public void warn(String sentence) {
        warnings.add(sentence);
    }

    /** A whole number in min..max, else {@code none}; present but invalid also warns and removes the key. */
    public long number(String key, long min, long max, long none) {
        Object v = state.get(key);
        if (v == null) {
            return none;
        }
        if ((v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)
                && ((Number) v).longValue() >= min && ((Number) v).longValue() <= max) {
            return ((Number) v).longValue();
        }
        invalid(key, v, "a whole number in " + min + ".." + max);
        return none;
    }

    /** Printable ASCII without spaces, at most {@code max} characters, else null (warned and removed when present). */
    public String token(String key, int max) {
        Object v = state.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && s.length() <= max && TOKEN.matcher(s).matches()) {
            return s;
        }
        invalid(key, v, "printable text without spaces, at most " + max + " characters");
        return null;
    }

    /** Any text without control characters, 1 to {@code max} characters, else null (warned and removed when present, saying it should be {@code expected}). */
    public String text(String key, int max, String expected) {
        Object v = state.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && !s.isEmpty() && s.length() <= max && s.chars().noneMatch(Character::isISOControl)) {
            return s;
        }
        invalid(key, v, expected);
        return null;
    }

    /** Removes {@code key} and says that its value was not {@code expected}. */
    public void invalid(String key, Object value, String expected) {
        state.remove(key);
        warnings.add("state value " + key + " = " + shown(value) + " is invalid (expected " + expected + "); reset it");
    }

    /** The value as the report may show it: short, one line. */
    private static String shown(Object value) {
        String s = value instanceof String ? '"' + (String) value + '"' : String.valueOf(value);
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(60).forEach(cp -> b.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return s.codePointCount(0, s.length()) > 60 ? b + "…" : b.toString();
    }
}
