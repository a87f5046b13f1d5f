package dev.nhc.checks.host;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code command}: runs an argv (never through a shell) under a timeout, stdin closed, output
 * capped at 64 KiB (stdout and stderr interleaved, as an admin sees them), under the same rules as
 * a {@code script} check ({@link TrustedCommand}: a bare name is looked up in the system
 * directories only, a clean environment with LANG=C, and as root nothing others can change is run
 * or given to the program). By default exit 0
 * passes and anything else fails with the first output line as message (LBNL NHC's convention);
 * {@code exit_code} and {@code output} (a regex that must be found) change what passes. A command
 * that does not finish in time is killed with its children and fails; one that cannot be started
 * is UNKNOWN.
 */
public final class CommandProbe implements Probe {
    private static final ProbeSpec SPEC = ProbeSpec.builder("command", "runs a command (argv, no shell) under a timeout and judges its exit code and output")
            .entities("the command (its first argument)")
            .param(ParamSpec.required("command", ParamType.STRING_LIST, "argv: program and arguments"))
            .param(ParamSpec.optional("exit_code", ParamType.INTEGER, 0L, "the exit code that passes"))
            .param(ParamSpec.optional("output", ParamType.STRING, null, "regex the output must contain"))
            .param(ParamSpec.optional("timeout", ParamType.DURATION, null, "time limit (default: the check's timeout)"))
            .field("exit_code", Unit.COUNT, "exit code (-1 when killed)")
            .field("duration", Unit.SECONDS, "how long it ran")
            .field("timed_out", Unit.BOOLEAN, "killed on timeout")
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
        List<String> argv = p.strings("command");
        String entity = argv.isEmpty() ? "command" : argv.get(0);
        if (argv.isEmpty()) {
            return unknown(entity, "check " + ctx.checkName() + ": 'command' is an empty list; give the program and its arguments");
        }
        Pattern output = null;
        if (p.string("output") != null) {
            try {
                output = Pattern.compile(p.string("output"), Pattern.MULTILINE);
            } catch (PatternSyntaxException e) {
                return unknown(entity, "check " + ctx.checkName() + ": 'output' is not a valid regular expression: " + e.getDescription());
            }
        }
        long expected = p.has("exit_code") ? p.integer("exit_code") : 0;
        Duration limit = ProcessRunner.within(ctx.remaining());
        if (p.duration("timeout") != null && p.duration("timeout").compareTo(limit) < 0) {
            limit = p.duration("timeout");
        }
        ProcessRunner.Result r;
        try (TrustedCommand cmd = TrustedCommand.prepare(argv, runningAsRoot.getAsBoolean())) {
            r = cmd.runner().env(Map.of("LANG", "C")).mergeStderr().timeout(limit).run();
        } catch (TrustedCommand.NotFoundException e) {
            return unknown(entity, "cannot run " + String.join(" ", argv) + ": " + argv.get(0) + " " + e.getMessage());
        } catch (UntrustedPathException e) {
            return unknown(entity, "refusing to run " + argv.get(0) + " as root: " + e.getMessage());
        } catch (ProcessRunner.StartFailure e) {
            return unknown(entity, "cannot run " + String.join(" ", argv) + ": " + e.reason());
        } catch (IOException e) {
            return unknown(entity, "refusing to run " + argv.get(0) + ": cannot check who can change it: " + e.getMessage());
        }
        ProbeResult.Builder out = ProbeResult.builder().observe(Observation.of(entity)
                .put("exit_code", (long) r.exitCode())
                .put("duration", r.elapsed().toNanos() / 1e9)
                .put("timed_out", r.timedOut()).build());
        if (r.timedOut()) {
            out.finding(Finding.of(entity, Severity.FAIL, String.join(" ", argv) + " did not finish within "
                    + human(limit) + "; killed it" + (r.killed() > 1 ? " and " + (r.killed() - 1) + " child processes" : "")));
        } else if (r.exitCode() != expected) {
            String first = r.firstLine();
            out.finding(Finding.of(entity, Severity.FAIL, first.isEmpty()
                    ? argv.get(0) + " exited with " + r.exitCode() + (expected == 0 ? "" : " (expected " + expected + ")")
                    : first));
        } else if (output != null && !output.matcher(r.stdout()).find()) {
            String first = r.firstLine();
            out.finding(Finding.of(entity, Severity.FAIL, "output of " + argv.get(0) + " does not match /" + output.pattern() + "/"
                    + (first.isEmpty() ? " (no output)" : ": " + first)));
        }
        return out.build();
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        return ms < 1000 ? ms + "ms" : (ms % 1000 == 0 ? ms / 1000 + "s" : String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0));
    }

    private static ProbeResult unknown(String entity, String why) {
        return ProbeResult.builder().finding(Finding.of(entity, Severity.UNKNOWN, why)).build();
    }
}
