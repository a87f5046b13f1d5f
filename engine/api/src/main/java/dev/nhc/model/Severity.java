package dev.nhc.model;

import java.util.Locale;

/**
 * How bad a finding is. Declared from best to worst, so that {@link #worst} is a plain ordinal
 * comparison: a verdict is as bad as its worst finding. UNKNOWN sits below WARN because "no
 * opinion" must never outrank an actual degradation.
 */
public enum Severity {
    PASS, UNKNOWN, WARN, FAIL;

    public static Severity worst(Severity a, Severity b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    public boolean isWorseThan(Severity other) {
        return ordinal() > other.ordinal();
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Severity parse(String text) {
        for (Severity s : values()) {
            if (s.label().equals(text)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown severity '" + text + "' (expected pass, warn, fail or unknown)");
    }
}
