package dev.nhc.units;

import java.time.Duration;

/** Durations as nhc's messages show them: "500ms", "45s", "6h", "1h30m", "2d". */
public final class Durations {
    private Durations() {
    }

    public static String human(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = Math.round(ms / 1000.0);
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m";
        }
        if (s < 172800) {
            return (s / 3600) + "h" + ((s % 3600) / 60 > 0 ? (s % 3600) / 60 + "m" : "");
        }
        return (s / 86400) + "d";
    }
}
