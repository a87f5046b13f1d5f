package dev.nhc.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one client program from an argv list (no shell ever sees an argument, so a reason cannot
 * become a command), each call under a timeout, with bounded retries, never past the deadline.
 * The output goes to temporary files rather than pipes so a chatty or hung child cannot block us.
 */
final class CommandRunner {
    /** Time kept back before the deadline so that nhc can still report and flush its state. */
    static final Duration RESERVE = Duration.ofMillis(500);
    private static final Duration MIN_ATTEMPT = Duration.ofMillis(200);

    record Result(int exit, String stdout, String stderr) {
        String firstLine() {
            String text = (stderr.isBlank() ? stdout : stderr).strip();
            int nl = text.indexOf('\n');
            return nl < 0 ? text : text.substring(0, nl);
        }
    }

    /** Decides from a finished call whether another attempt could help (not for "node not found"). */
    interface Retryable {
        boolean test(Result r);
    }

    private final Map<String, String> env;
    private final Duration timeout;
    private final int retries;
    private final Instant deadline;
    private final Clock clock;
    private final Duration backoff;

    CommandRunner(Map<String, String> env, Duration timeout, int retries, Instant deadline, Clock clock, Duration backoff) {
        this.env = Map.copyOf(env);
        this.timeout = timeout;
        this.retries = retries;
        this.deadline = deadline;
        this.clock = clock;
        this.backoff = backoff;
    }

    /**
     * Runs argv until it exits 0, a retry cannot help, or attempts/time run out.
     *
     * @return the last finished result (exit 0, or a failure that {@code retryable} refused)
     * @throws SlurmUnavailableException when the program is missing, keeps timing out or failing, or no time is left
     */
    Result run(List<String> argv, Retryable retryable) throws SlurmUnavailableException {
        Path program = Path.of(argv.get(0));
        if (!Files.isExecutable(program)) {
            throw new SlurmUnavailableException(program + " is missing or not executable (set slurm: "
                    + program.getFileName() + ": PATH in the config)");
        }
        String last = null;
        for (int attempt = 0; attempt <= retries; attempt++) {
            if (attempt > 0) {
                pause();
            }
            Duration left = Duration.between(clock.instant(), deadline).minus(RESERVE);
            if (left.compareTo(MIN_ATTEMPT) < 0) {
                throw new SlurmUnavailableException(String.join(" ", argv.subList(0, Math.min(3, argv.size())))
                        + ": no time left before the run's deadline" + (last == null ? "" : " (last attempt: " + last + ")"));
            }
            Duration limit = left.compareTo(timeout) < 0 ? left : timeout;
            Result r = once(argv, limit);
            if (r == null) {
                last = "no answer within " + limit.toMillis() + " ms";
                continue;
            }
            if (r.exit() == 0 || !retryable.test(r)) {
                return r;
            }
            last = "exit " + r.exit() + ": " + r.firstLine();
        }
        throw new SlurmUnavailableException(program.getFileName() + " " + argv.get(1) + " failed " + (retries + 1)
                + " time(s), last: " + last);
    }

    private void pause() {
        Duration left = Duration.between(clock.instant(), deadline).minus(RESERVE).minus(MIN_ATTEMPT);
        long ms = Math.min(backoff.toMillis(), Math.max(0, left.toMillis()));
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One attempt; null when it did not finish in time (then it and its children are killed). */
    private Result once(List<String> argv, Duration limit) throws SlurmUnavailableException {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("nhc-slurm", ".out");
            err = Files.createTempFile("nhc-slurm", ".err");
            ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return null;
            }
            return new Result(p.exitValue(), new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
                    new String(Files.readAllBytes(err), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new SlurmUnavailableException("cannot run " + argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SlurmUnavailableException(argv.get(0) + " interrupted");
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // A leftover empty temp file is harmless; the result is what matters.
            }
        }
    }
}
