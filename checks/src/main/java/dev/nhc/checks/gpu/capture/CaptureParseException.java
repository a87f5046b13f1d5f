package dev.nhc.checks.gpu.capture;

import java.util.List;

/** A capture that cannot be read with confidence: says where (file and line) and what was expected. Never a pass. */
public final class CaptureParseException extends Exception {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    public CaptureParseException(String source, List<String> problems) {
        this(source, "nvidia-smi", problems);
    }

    /** @param tool what made the capture: "nvidia-smi", "amd-smi" */
    public CaptureParseException(String source, String tool, List<String> problems) {
        super(source + " is not a readable " + tool + " capture: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    private CaptureParseException(String message, String problem) {
        super(message);
        this.problems = List.of(problem);
    }

    /** Captures that each read fine but cannot be of the same node. */
    public static CaptureParseException mismatch(String problem) {
        return new CaptureParseException(problem, problem);
    }

    /** Each problem as "line N: what was expected, what was found". */
    public List<String> problems() {
        return problems;
    }
}
