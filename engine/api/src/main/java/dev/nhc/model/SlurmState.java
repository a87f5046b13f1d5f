package dev.nhc.model;

import java.util.Locale;

/** The Slurm node state a failing finding asks for: DRAIN for "not fit for work", FAIL for a fault that needs service. */
public enum SlurmState {
    DRAIN, FAIL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static SlurmState parse(String text) {
        for (SlurmState s : values()) {
            if (s.label().equals(text)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown slurm_state '" + text + "' (expected drain or fail)");
    }
}
