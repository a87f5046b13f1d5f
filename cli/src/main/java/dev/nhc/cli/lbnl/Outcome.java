package dev.nhc.cli.lbnl;

import java.util.List;
import java.util.Map;

/** What one LBNL config line becomes: nhc checks or settings, a carried-over LBNL function, or nothing (refused, with why). */
public sealed interface Outcome {

    /** Checks and settings with the same meaning; notes say where nhc's view differs in ways that do not change pass/fail. */
    record Translated(List<NhcCheck> checks, Map<String, Object> settings, List<String> notes) implements Outcome {
        public static Translated checks(NhcCheck... checks) {
            return new Translated(List.of(checks), Map.of(), List.of());
        }

        public static Translated note(String note) {
            return new Translated(List.of(), Map.of(), List.of(note));
        }
    }

    /** Kept as a script check that runs the LBNL function itself; the reason says why it was not translated. */
    record CarriedOver(String reason) implements Outcome {
    }

    /** Neither translated nor carried over; the reason says what the admin has to do. */
    record Refused(String reason) implements Outcome {
    }
}
