package dev.nhc.slurm;

import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Runs scontrol and sinfo from an argv list (no shell ever sees an argument, so a reason cannot
 * become a command), each call under a timeout, with bounded retries, never past the deadline.
 * Each attempt goes through the engine's launcher as every program nhc runs does
 * ({@link TrustedCommand}: as root, only a tool that only root can change, run through its checked
 * descriptor; {@link ProcessRunner}: a clean environment, output capped, and the tool and whatever
 * it started killed at the timeout or left behind). The arguments are nhc's own data (a reason
 * quotes findings), so only the tool itself is held to the trust rule.
 */
final class SlurmCommands {
    /** Time kept back before the deadline so that nhc can still report and flush its state. */
    static final Duration RESERVE = Duration.ofMillis(500);
    private static final Duration MIN_ATTEMPT = Duration.ofMillis(200);
    /** `scontrol show node -o` is about 600 bytes a node: room for 50,000 nodes; a cut list would miscount the circuit breaker. */
    static final int OUTPUT_CAP = 32 << 20;

    /** Decides from a finished call whether another attempt could help (not for "node not found"). */
    interface Retryable {
        boolean test(ProcessRunner.Result r);
    }

    private final Map<String, String> env;
    private final Duration timeout;
    private final int retries;
    private final Instant deadline;
    private final Clock clock;
    private final Duration backoff;
    private final boolean rootOnly;

    SlurmCommands(Map<String, String> env, Duration timeout, int retries, Instant deadline, Clock clock, Duration backoff, boolean rootOnly) {
        this.env = Map.copyOf(env);
        this.timeout = timeout;
        this.retries = retries;
        this.deadline = deadline;
        this.clock = clock;
        this.backoff = backoff;
        this.rootOnly = rootOnly;
    }

    /** What the tool said, for messages: stderr's first line when it wrote one (Slurm's errors go there), else stdout's. */
    static String said(ProcessRunner.Result r) {
        String text = (r.stderr().isBlank() ? r.stdout() : r.stderr()).strip();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    /**
     * Runs argv until it exits 0, a retry cannot help, or attempts/time run out.
     *
     * @return the last finished result (exit 0, or a failure that {@code retryable} refused)
     * @throws SlurmUnavailableException when the program is missing, refused, keeps timing out or failing, or no time is left
     */
    ProcessRunner.Result run(List<String> argv, Retryable retryable) throws SlurmUnavailableException {
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
            ProcessRunner.Result r = once(argv, limit);
            if (r.timedOut()) {
                last = "no answer within " + limit.toMillis() + " ms";
                continue;
            }
            if (r.truncated()) {
                throw new SlurmUnavailableException(tool(argv) + " " + argv.get(1) + " printed more than " + (OUTPUT_CAP >> 20)
                        + " MiB; nhc does not act on a cut answer");
            }
            if (r.exitCode() == 0 || !retryable.test(r)) {
                return r;
            }
            last = "exit " + r.exitCode() + ": " + said(r);
        }
        throw new SlurmUnavailableException(tool(argv) + " " + argv.get(1) + " failed " + (retries + 1) + " time(s), last: " + last);
    }

    private static String tool(List<String> argv) {
        String p = argv.get(0);
        return p.substring(p.lastIndexOf('/') + 1);
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

    /** One attempt, killed with everything it started when {@code limit} is up. */
    private ProcessRunner.Result once(List<String> argv, Duration limit) throws SlurmUnavailableException {
        String program = argv.get(0);
        try (TrustedCommand cmd = TrustedCommand.prepare(argv, rootOnly, TrustedCommand.Arguments.DATA)) {
            return cmd.runner().env(env).timeout(limit).outputCap(OUTPUT_CAP).run();
        } catch (TrustedCommand.NotFoundException e) {
            throw new SlurmUnavailableException(program + " is missing or not executable (set slurm: " + tool(argv) + ": PATH in the config)");
        } catch (UntrustedPathException e) {
            throw new SlurmUnavailableException("refusing to run " + program + " as root: " + e.getMessage()
                    + "; running as root, nhc runs only programs that only root can change");
        } catch (ProcessRunner.StartFailure e) {
            throw new SlurmUnavailableException("cannot run " + program + ": " + e.reason());
        } catch (IOException e) {
            throw new SlurmUnavailableException("refusing to run " + program + ": cannot check who can change it: " + IoReason.of(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SlurmUnavailableException(program + " interrupted");
        }
    }
}
