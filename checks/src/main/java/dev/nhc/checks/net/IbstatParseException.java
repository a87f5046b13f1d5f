package dev.nhc.checks.net;

import java.util.List;

/** An ibstat capture that cannot be read with confidence: says where (line) and what was expected. Never a pass. */
public final class IbstatParseException extends Exception {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    public IbstatParseException(String source, List<String> problems) {
        super(source + " is not readable ibstat output: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem as "line N: what was expected, what was found". */
    public List<String> problems() {
        return problems;
    }
}
