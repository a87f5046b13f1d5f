package dev.nhc.model;

import java.util.Locale;

/** What an operator should do about a finding; it travels with the finding (gpud's "suggested action"). */
public enum Remedy {
    NONE, RESTART_APP, RESET_GPU, REBOOT, HARDWARE;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Remedy parse(String text) {
        for (Remedy r : values()) {
            if (r.label().equals(text)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown remedy '" + text + "' (expected none, restart-app, reset-gpu, reboot or hardware)");
    }
}
