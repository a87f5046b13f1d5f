package dev.nhc.engine.config;

/** The {@code on_unknown} setting: what an UNKNOWN finding (the check could not decide) counts as. The severity policy applies it. */
public enum OnUnknown {
    IGNORE, WARN, FAIL;

    public static OnUnknown parse(String text) {
        for (OnUnknown o : values()) {
            if (o.name().equalsIgnoreCase(text)) {
                return o;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not one of ignore, warn, fail");
    }
}
