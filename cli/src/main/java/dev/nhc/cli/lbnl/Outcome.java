package dev.nhc.cli.lbnl;

import java.util.List;
import java.util.Map;

/** What one LBNL config line becomes: nhc checks or settings, a carried-over LBNL function, or nothing (refused, with why). */
public sealed interface Outcome {

    /**
     * Checks and settings with the same meaning. {@code notes} are for the reader of the YAML;
     * {@code differences} say where nhc's checks are not exactly LBNL NHC's line, and are printed on
     * stderr with the line as well.
     */
    record Translated(List<NhcCheck> checks, Map<String, Object> settings, List<String> notes, List<String> differences) implements Outcome {
        public Translated(List<NhcCheck> checks, Map<String, Object> settings, List<String> notes) {
            this(checks, settings, notes, List.of());
        }

        public static Translated checks(NhcCheck... checks) {
            return new Translated(List.of(checks), Map.of(), List.of());
        }

        public static Translated checks(List<NhcCheck> checks) {
            return new Translated(List.copyOf(checks), Map.of(), List.of());
        }

        public static Translated note(String note) {
            return new Translated(List.of(), Map.of(), List.of(note));
        }

        /** Nothing to check, and a difference to say: the line does something nhc leaves out. */
        public static Translated nothing(String note, String difference) {
            return new Translated(List.of(), Map.of(), List.of(note), List.of(difference));
        }
    }

    /** Kept as a script check that runs the LBNL function itself; the reason says why it was not translated. */
    record CarriedOver(String reason) implements Outcome {
    }

    /** Neither translated nor carried over; the reason says what the admin has to do. */
    record Refused(String reason) implements Outcome {
    }
}
