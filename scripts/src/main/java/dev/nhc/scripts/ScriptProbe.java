package dev.nhc.scripts;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code script}: a site's own diagnostic, an executable run with argv (never through a shell),
 * a clean environment (PATH=/usr/sbin:/usr/bin:/sbin:/bin plus {@code with: { env }}), stdin
 * from /dev/null and a time limit; it is killed with every process it started when it ends or
 * its time is up. When nhc runs as root, a script that anyone but root can change is refused.
 *
 * <p>What the script says is observed, not judged here: its exit code and first output line (on
 * the node), and the per-entity findings it may print as JSON (see scripts/README.md, and
 * {@link ScriptFindings}). The default rules read the exit code by one of two conventions:
 * {@code nhc} (LBNL NHC: exit 0 passes, anything else fails with the first output line as
 * message) or {@code npd} (Kubernetes node-problem-detector plugins: 0 OK, 1 problem, 2 unknown).
 * An exit code counts only when the script's own JSON findings do not already say as much
 * ({@code worst_reported}), so a port the script reports failing is not reported twice.
 */
public final class ScriptProbe implements Probe {
    public static final String NAME = "script";
    static final long DEFAULT_MAX_OUTPUT = 1 << 20;
    private static final long MAX_OUTPUT_LIMIT = 64L << 20;

    static final ParamSpec<List<String>> COMMAND = ParamSpec.texts("command",
                    "the program and its arguments, e.g. [/etc/nhc/scripts/check-ib.sh, mlx5_0, \"400\"]")
            .required()
            .check(argv -> argv.isEmpty() || argv.get(0).isBlank() ? "must name the program to run, then its arguments" : null)
            .names(ParamSpec.PathUse.RUN);
    static final ParamSpec<Map<String, Object>> ENV = ParamSpec.map("env", "variables added to the clean environment")
            .check(ScriptProbe::envProblem);
    static final ParamSpec<String> CONVENTION = ParamSpec.choice("convention",
            "how its exit code reads: nhc (0 pass, else fail) or npd (0 ok, 1 problem, 2 unknown)", "nhc", "npd").defaultValue("nhc");
    static final ParamSpec<String> PROBLEM = ParamSpec.choice("problem", "npd: what exit code 1 means", "fail", "warn")
            .defaultValue("fail");
    static final ParamSpec<Duration> TIMEOUT = ParamSpec.duration("timeout", "kill the script after this long (default: the check's timeout)")
            .check(d -> d.isNegative() || d.isZero() ? "must be longer than 0" : null);
    static final ParamSpec<Long> MAX_OUTPUT = ParamSpec.bytes("max_output", "output kept of stdout and stderr; the rest is read and dropped")
            .defaultValue(DEFAULT_MAX_OUTPUT)
            .check(b -> b < 1 || b > MAX_OUTPUT_LIMIT ? "must be from 1 byte to 64 MiB" : null);

    private static final String FAILED = "!= 0";
    private static final String HAS_LINE = "~ .";
    /** The script's JSON reported nothing at least as bad as what its exit code says. */
    private static final String NO_REPORTED_FAIL = "!= fail";
    private static final String NO_REPORTED_PROBLEM = "!~ ^(warn|fail)$";
    private static final String NOTHING_REPORTED = "~ ^(none|pass)$";
    private static final String EXITED = "script {program} exited with code {exit_code}";

    private static final ProbeSpec SPEC = ScriptFindings.declare(ProbeSpec.builder(NAME,
                    "an external diagnostic script: exit code and first output line (LBNL NHC or node-problem-detector), or JSON findings")
            .tags(Tags.SCRIPT)
            .entities(Entity.Kind.NODE, "the node (exit code and first line), and the entities the script names in its JSON findings")
            .param(COMMAND)
            .param(ENV)
            .param(CONVENTION)
            .param(PROBLEM)
            .param(TIMEOUT)
            .param(MAX_OUTPUT)
            .field("exit_code", Unit.COUNT, "the script's exit code (absent when it was killed at its timeout)")
            .field("first_line", Unit.TEXT, "its first non-blank line of stdout, else of stderr (absent when it printed none, or printed JSON findings)")
            .field("worst_reported", Unit.TEXT, "the worst severity among its JSON findings: pass, unknown, warn, fail, or none")
            .field("program", Unit.TEXT, "the program run, as the command names it")
            .field("timed_out", Unit.BOOLEAN, "killed at its timeout")
            .field("time_limit", Unit.SECONDS, "the time it was given")
            .field("duration", Unit.SECONDS, "how long it ran")
            .field("output_bytes", Unit.BYTES, "how much it printed on stdout")
            .field("killed_processes", Unit.COUNT, "processes it started that nhc killed (left running, or at the timeout)")
            // The run is known by its program (the node may also be an entity the script reports on).
            .reportedWith("program", "exit_code", "worst_reported", "timed_out", "time_limit", "duration", "output_bytes", "killed_processes")
            .optional("program", "first_line"))
            .rule(DefaultRule.fail(all("exit_code", FAILED, "worst_reported", NO_REPORTED_FAIL, "first_line", HAS_LINE), "{first_line}")
                    .when("convention", "nhc"))
            .rule(DefaultRule.fail(all("exit_code", FAILED, "worst_reported", NO_REPORTED_FAIL), EXITED).when("convention", "nhc"))
            .rule(DefaultRule.fail(all("exit_code", 1, "worst_reported", NO_REPORTED_FAIL, "first_line", HAS_LINE), "{first_line}")
                    .when("convention", "npd").when("problem", "fail"))
            .rule(DefaultRule.fail(all("exit_code", 1, "worst_reported", NO_REPORTED_FAIL), EXITED)
                    .when("convention", "npd").when("problem", "fail"))
            .rule(DefaultRule.warn(all("exit_code", 1, "worst_reported", NO_REPORTED_PROBLEM, "first_line", HAS_LINE), "{first_line}")
                    .when("convention", "npd").when("problem", "warn"))
            .rule(DefaultRule.warn(all("exit_code", 1, "worst_reported", NO_REPORTED_PROBLEM), EXITED)
                    .when("convention", "npd").when("problem", "warn"))
            .rule(DefaultRule.unknown(all("exit_code", "> 1", "worst_reported", NOTHING_REPORTED, "first_line", HAS_LINE), "{first_line}")
                    .when("convention", "npd"))
            .rule(DefaultRule.unknown(all("exit_code", "> 1", "worst_reported", NOTHING_REPORTED),
                    EXITED + " (npd: 0 ok, 1 problem, 2 unknown)").when("convention", "npd"))
            .rule(DefaultRule.unknown(Map.of("timed_out", true),
                    "script {program} did not finish within {time_limit}; killed it and {killed_processes} {killed_processes|process|processes} it started"))
            .build();

    private final BooleanSupplier runningAsRoot;

    public ScriptProbe() {
        this(Ownership::runningAsRoot);
    }

    ScriptProbe(BooleanSupplier runningAsRoot) {
        this.runningAsRoot = runningAsRoot;
    }

    /** Conditions that must all hold, in the order nhc list shows them (field, condition, field, condition…). */
    static Map<String, Object> all(Object... pairs) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], pairs[i + 1]);
        }
        return m;
    }

    /** A name and value a process environment can hold, or why not. */
    private static String envProblem(Map<String, Object> env) {
        for (Map.Entry<String, Object> e : env.entrySet()) {
            Object v = e.getValue();
            if (e.getKey().isEmpty() || e.getKey().contains("=") || e.getKey().indexOf('\0') >= 0) {
                return "variable '" + e.getKey() + "' has a name a process environment cannot hold (empty, or with '=' or NUL)";
            }
            if (v instanceof Map || v instanceof List || v == null || String.valueOf(v).indexOf('\0') >= 0) {
                return "variable '" + e.getKey() + "' needs a single value without NUL";
            }
        }
        return null;
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        List<String> command = COMMAND.get(ctx.params()); // command and env: checked at load (COMMAND, envProblem)
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, Object> configured = ENV.get(ctx.params());
        for (Map.Entry<String, Object> e : (configured == null ? Map.<String, Object>of() : configured).entrySet()) {
            env.put(e.getKey(), String.valueOf(e.getValue()));
        }
        Duration timeout = TIMEOUT.get(ctx.params());
        Duration left = ctx.remaining().minusMillis(200);
        // Killed a little before the check's deadline, so that its result is still in; messages name the limit as configured.
        Duration named = ctx.timeLimit(timeout);
        if (timeout == null || timeout.compareTo(left) > 0) {
            timeout = left.isNegative() ? Duration.ofMillis(100) : left;
        }
        long cap = Math.min(MAX_OUTPUT.get(ctx.params()), MAX_OUTPUT_LIMIT);
        ProcessRunner.Result o;
        try (TrustedCommand cmd = TrustedCommand.prepare(command, runningAsRoot.getAsBoolean())) {
            o = cmd.runner().env(env).timeout(timeout).outputCap((int) cap).run();
        } catch (TrustedCommand.NotFoundException e) {
            return unknown("script " + command.get(0) + " " + e.getMessage());
        } catch (UntrustedPathException e) {
            return unknown("refusing to run " + command.get(0) + " as root: " + e.getMessage());
        } catch (ProcessRunner.StartFailure e) {
            return unknown("script cannot run " + command.get(0) + ": " + e.reason());
        } catch (IOException e) {
            return unknown("refusing to run " + command.get(0) + ": cannot check who can change it: " + e.getMessage());
        }
        return observe(command.get(0), o, named);
    }

    /** The script's own verdict as observations: per entity it reported, and its exit code and first line on the node. */
    private static ProbeResult observe(String name, ProcessRunner.Result o, Duration limit) {
        Observation.Builder run = Observation.of(Entity.NODE).put("program", name)
                .put("exit_code", o.timedOut() ? null : (long) o.exitCode())
                .put("timed_out", o.timedOut()).put("time_limit", limit.toMillis() / 1000.0)
                .put("duration", o.elapsed().toMillis() / 1000.0).put("output_bytes", o.stdoutBytes())
                .put("killed_processes", (long) o.killedChildren());
        if (o.timedOut()) {
            return ProbeResult.of(run.build());
        }
        List<Observation> reported = List.of();
        String out = o.stdout().strip();
        if (out.startsWith("{") && out.contains("\"nhc_findings\"")) {
            try {
                Object doc = JSON.std.anyFrom(out);
                if (!(doc instanceof Map<?, ?> m) || !m.containsKey("nhc_findings")) {
                    throw new IllegalArgumentException("the output is not an object with nhc_findings");
                }
                reported = ScriptFindings.read(m.get("nhc_findings"));
            } catch (IOException | IllegalArgumentException e) {
                String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe ? jpe.getOriginalMessage().lines().findFirst().orElse("")
                        + (jpe.getLocation() != null ? " at line " + jpe.getLocation().getLineNr() : "") : e.getMessage();
                return ProbeResult.of(run.problem("script " + name + " printed nhc_findings JSON nhc cannot read: "
                        + why + (o.truncated() ? " (output was cut at max_output)" : "")).build());
            }
            run.put("worst_reported", ScriptFindings.worst(reported));
        } else {
            run.put("worst_reported", "none").put("first_line", o.firstLine().isEmpty() ? null : ScriptFindings.clip(o.firstLine()));
        }
        List<Observation> all = new ArrayList<>(reported);
        all.add(run.build());
        return new ProbeResult(all, null);
    }

    /** The script could not be run: the check cannot decide for the node. */
    static ProbeResult unknown(String why) {
        return ProbeResult.of(Observation.unreadable(Entity.NODE, why));
    }
}
