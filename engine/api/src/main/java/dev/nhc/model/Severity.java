package dev.nhc.model;

import java.util.Locale;

/**
 * How bad a finding is. How severities combine (which is worst), and what each means to Slurm,
 * dstack and the exit code, is the engine's severity policy, in one place.
 */
public enum Severity {
    PASS, UNKNOWN, WARN, FAIL;

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
