package dev.nhc.engine.config;

import dev.nhc.model.Severity;

/** What an UNKNOWN finding (the check could not decide) counts as. Default: no opinion. */
public enum OnUnknown {
    IGNORE, WARN, FAIL;

    public Severity apply(Severity s) {
        if (s != Severity.UNKNOWN) {
            return s;
        }
        return switch (this) {
            case IGNORE -> Severity.UNKNOWN;
            case WARN -> Severity.WARN;
            case FAIL -> Severity.FAIL;
        };
    }

    public static OnUnknown parse(String text) {
        for (OnUnknown o : values()) {
            if (o.name().equalsIgnoreCase(text)) {
                return o;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not one of ignore, warn, fail");
    }
}
