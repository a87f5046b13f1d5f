package dev.nhc.engine.process;

import java.util.List;

/**
 * How an external tool's run ended. {@code exitCode} is -1 when it was killed at its time limit
 * ({@code timedOut}). {@code stdout}/{@code stderr} hold at most the runner's cap each;
 * {@code stdoutBytes} is how much was printed in all, {@code truncated} whether either was cut. {@code pipesClosed} false means something kept the
 * tool's output open after it ended and the rest was not waited for. {@code killedProcesses}:
 * processes the tool left behind (or that were still below it at the timeout) that were killed.
 */
public record ProcessOutcome(List<String> command, int exitCode, boolean timedOut, String stdout, String stderr,
                             long stdoutBytes, boolean truncated, boolean pipesClosed, int killedProcesses,
                             long durationMs) {

    /** The first non-blank line of stdout, else of stderr, else null. */
    public String firstLine() {
        String l = firstLine(stdout);
        return l != null ? l : firstLine(stderr);
    }

    public static String firstLine(String text) {
        for (String line : text.split("\n", -1)) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return null;
    }
}
