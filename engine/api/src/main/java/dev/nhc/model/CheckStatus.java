package dev.nhc.model;

import java.util.Locale;

/** How a check's run ended, independent of what it found. */
public enum CheckStatus {
    /** The probe returned and its observations were judged. */
    COMPLETED,
    /** The probe did not return within its timeout or the run's deadline and was abandoned. */
    TIMED_OUT,
    /** The probe threw: a bug or an environment it cannot read; the check is UNKNOWN. */
    ERROR,
    /** Not run: not due yet, not for this host, or (in replay) no capture holds its data. Does not count towards the verdict. */
    SKIPPED;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
