package dev.nhc.engine.policy;

import dev.nhc.model.Severity;

import java.util.EnumMap;
import java.util.Map;

/**
 * The process exit codes of docs/DESIGN.md's contract, the one table of them: what a verdict's
 * severity means to the exit code (a strategy as Spring Boot's {@code SimpleHttpCodeStatusMapper}),
 * and the codes of a run that judged nothing.
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** The verdict fails, or an action insists (the circuit breaker refused to drain). */
    public static final int FAIL = 1;
    /** The config is invalid: no action at all. */
    public static final int INVALID = 2;
    /** nhc's own error, or an environment it cannot run in: no action. */
    public static final int INTERNAL = 3;

    private static final Map<Severity, Integer> BY_SEVERITY = new EnumMap<>(Map.of(
            Severity.PASS, OK, Severity.WARN, OK, Severity.UNKNOWN, OK, Severity.FAIL, FAIL));

    private ExitCodes() {
    }

    /** The exit code of a run with this verdict; 1 when an action insists although nothing failed. */
    public static int of(Severity verdict, boolean actionForcedFailure) {
        return actionForcedFailure ? FAIL : BY_SEVERITY.get(verdict);
    }
}
