package dev.nhc.cli;

/** The exit codes of DESIGN.md's contract. */
final class ExitCodes {
    static final int OK = 0;
    static final int FAIL = 1;
    static final int INVALID = 2;
    static final int INTERNAL = 3;
    /** {@link #FAIL} as the JVM's status under bin/nhc, which alone tells it from a JVM that could not start (also 1). */
    static final int FAIL_VIA_LAUNCHER = 101;

    private ExitCodes() {
    }

    static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m.replace('\n', ' '));
    }
}
