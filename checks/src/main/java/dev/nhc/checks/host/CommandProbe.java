package dev.nhc.checks.host;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.text.BoundedRegex;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * {@code command}: runs an argv (never through a shell) under a timeout, stdin closed, output
 * capped at 64 KiB (stdout and stderr interleaved, as an admin sees them), under the same rules as
 * a {@code script} check ({@link TrustedCommand}: a bare name is looked up in the system
 * directories only, a clean environment with LANG=C, and as root nothing others can change is run
 * or given to the program), and observes its exit
 * code, first output line, whether the output matches {@code output}, and whether it had to be
 * killed. The default rules hold LBNL NHC's convention: a command that times out fails, one that
 * exits other than {@code exit_code} fails with its first output line as message, one whose output
 * lacks {@code output} fails. One that cannot be started is unreadable (UNKNOWN).
 */
public final class CommandProbe implements Probe {
    private static final int LABEL_MAX = 100;

    static final ParamSpec<List<String>> COMMAND = ParamSpec.texts("command", "argv: program and arguments")
            .required()
            .check(argv -> argv.isEmpty() || argv.get(0).isBlank() ? "must name the program to run, then its arguments" : null)
            .names(ParamSpec.PathUse.RUN);
    static final ParamSpec<Long> EXIT_CODE = ParamSpec.integer("exit_code", "the exit code that passes")
            .defaultValue(0L)
            .check(c -> c < 0 || c > 255 ? "must be an exit code from 0 to 255, not " + c : null);
    static final ParamSpec<Pattern> OUTPUT = ParamSpec.regex("output", "regex the output must contain (^ and $ match at line ends)");
    static final ParamSpec<Duration> TIMEOUT = ParamSpec.duration("timeout", "time limit (default: the check's timeout)")
            .check(d -> d.isNegative() || d.isZero() ? "must be longer than 0" : null);

    private static final String EXIT_DIFFERS = "!= {with.exit_code}";
    private static final String HAS_LINE = "~ .";

    private static final ProbeSpec SPEC = ProbeSpec.builder("command", "runs a command (argv, no shell) under a timeout and judges its exit code and output")
            .tags(Tags.HOST, Tags.SCRIPT)
            .entities(Entity.Kind.PROCESS, "the command (its argv)")
            .param(COMMAND)
            .param(EXIT_CODE)
            .param(OUTPUT)
            .param(TIMEOUT)
            .field("exit_code", Unit.COUNT, "exit code (-1 when killed)")
            .field("first_line", Unit.TEXT, "first non-blank output line (absent when it printed nothing)")
            .field("output_matches", Unit.BOOLEAN, "whether the output contains the 'output' regex (only with output, and when it finished)")
            .field("output_error", Unit.TEXT, "why the 'output' regex could not say (it gave up: it read more than its bound)")
            .field("timed_out", Unit.BOOLEAN, "killed on timeout")
            .field("time_limit", Unit.SECONDS, "the time it was given")
            .field("killed_processes", Unit.COUNT, "processes it started that nhc killed (left running, or at the timeout)")
            .field("duration", Unit.SECONDS, "how long it ran")
            .optional("first_line", "output_matches", "output_error")
            .rule(DefaultRule.fail(Map.of("timed_out", true),
                    "{entity} did not finish within {time_limit}; killed it and {killed_processes} {killed_processes|process|processes} it started"))
            .rule(DefaultRule.fail(AllOf.of("exit_code", EXIT_DIFFERS, "first_line", HAS_LINE), "{first_line}"))
            .rule(DefaultRule.fail(Map.of("exit_code", EXIT_DIFFERS), "{entity} exited with {exit_code} (expected {with.exit_code})"))
            .rule(DefaultRule.fail(AllOf.of("output_matches", false, "first_line", HAS_LINE),
                    "output of {entity} does not match /{with.output}/: {first_line}"))
            .rule(DefaultRule.fail(Map.of("output_matches", false), "output of {entity} does not match /{with.output}/ (no output)"))
            .rule(DefaultRule.unknown(Map.of("output_error", HAS_LINE), "output of {entity}: {output_error}"))
            .build();

    private final BooleanSupplier runningAsRoot;

    public CommandProbe() {
        this(Ownership::runningAsRoot);
    }

    CommandProbe(BooleanSupplier runningAsRoot) {
        this.runningAsRoot = runningAsRoot;
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws InterruptedException {
        Params p = ctx.params();
        List<String> argv = COMMAND.get(p);
        Entity entity = entity(argv);
        Duration limit = ProcessRunner.within(ctx.remaining());
        Duration timeout = TIMEOUT.get(p);
        // Messages name the limit as configured, not the moment the command was killed at.
        Duration named = ctx.timeLimit(timeout);
        if (timeout != null && timeout.compareTo(limit) < 0) {
            limit = timeout;
        }
        ProcessRunner.Result r;
        try (TrustedCommand cmd = TrustedCommand.prepare(argv, runningAsRoot.getAsBoolean())) {
            r = cmd.runner().env(Map.of("LANG", "C")).mergeStderr().timeout(limit).run();
        } catch (TrustedCommand.NotFoundException e) {
            return ProbeResult.of(Observation.unreadable(entity, "cannot run " + String.join(" ", argv) + ": " + argv.get(0) + " " + e.getMessage()));
        } catch (UntrustedPathException e) {
            return ProbeResult.of(Observation.unreadable(entity, "refusing to run " + argv.get(0) + " as root: " + e.getMessage()));
        } catch (ProcessRunner.StartFailure e) {
            return ProbeResult.of(Observation.unreadable(entity, "cannot run " + String.join(" ", argv) + ": " + e.reason()));
        } catch (IOException e) {
            return ProbeResult.of(Observation.unreadable(entity, "refusing to run " + argv.get(0) + ": cannot check who can change it: "
                    + e.getMessage()));
        }
        Observation.Builder o = Observation.of(entity)
                .put("exit_code", (long) r.exitCode())
                .put("first_line", r.firstLine().isEmpty() ? null : r.firstLine())
                .put("timed_out", r.timedOut())
                .put("time_limit", named.toMillis() / 1000.0)
                .put("killed_processes", (long) r.killedChildren())
                .put("duration", r.elapsed().toNanos() / 1e9);
        Pattern output = OUTPUT.get(p);
        if (output != null && !r.timedOut()) {
            // Lines, as an admin reads output: ^ and $ match at each line's ends.
            // The output may hold what users shaped (their jobs, their files): the regex runs with a bound.
            BoundedRegex.Result m = BoundedRegex.find(BoundedRegex.forSearch(output.pattern(), output.flags() | Pattern.MULTILINE), r.stdout());
            if (m == BoundedRegex.Result.GAVE_UP) {
                o.put("output_error", "the 'output' regex gave up (it read more than " + BoundedRegex.BOUND
                        + "); write it without nested or leading wildcards");
            } else {
                o.put("output_matches", m.matched());
            }
        }
        return ProbeResult.of(o.build());
    }

    /** The command as an admin would type it, cut to fit a Slurm reason. */
    private static Entity entity(List<String> argv) {
        String line = argv.isEmpty() ? "command" : String.join(" ", argv);
        return Entity.of(Entity.Kind.PROCESS, line.length() > LABEL_MAX ? line.substring(0, LABEL_MAX) + "…" : line);
    }
}
