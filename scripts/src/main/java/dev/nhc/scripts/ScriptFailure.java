package dev.nhc.scripts;

/** A script.js check that could not produce findings: syntax error, exception, time limit, denied access. */
public final class ScriptFailure extends Exception {
    private static final long serialVersionUID = 1L;

    public ScriptFailure(String message) {
        super(message);
    }
}
