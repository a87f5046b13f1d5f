package dev.nhc.scripts;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code script}: a site's own diagnostic, an executable run with argv (never through a shell),
 * a clean environment (PATH=/usr/sbin:/usr/bin:/sbin:/bin plus {@code with: { env }}), stdin
 * from /dev/null and a time limit, under the rules of {@link TrustedCommand} that {@code command}
 * checks share; it is killed with every process it started when it ends or
 * its time is up. Its result is read by one of two conventions: {@code nhc} (LBNL NHC: exit 0
 * passes, anything else fails with the first output line as message) or {@code npd} (Kubernetes
 * node-problem-detector plugins: 0 OK, 1 problem, 2 unknown). A script may instead print
 * per-entity findings as JSON (see scripts/README.md). When nhc runs as root, a script that
 * anyone but root can change, or one given such a file as an argument, is refused.
 */
public final class ScriptProbe implements Probe {
    public static final String NAME = "script";
    static final long DEFAULT_MAX_OUTPUT = 1 << 20;

    private final BooleanSupplier runningAsRoot;

    public ScriptProbe() {
        this(Ownership::runningAsRoot);
    }

    ScriptProbe(BooleanSupplier runningAsRoot) {
        this.runningAsRoot = runningAsRoot;
    }

    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder(NAME, "an external diagnostic script: exit code and first output line (LBNL NHC or node-problem-detector), or JSON findings")
                .entities("the node, or the entities the script names in its JSON findings")
                .param(ParamSpec.required("command", ParamType.STRING_LIST, "the program and its arguments, e.g. [/etc/nhc/scripts/check-ib.sh, mlx5_0, \"400\"]"))
                .param(ParamSpec.optional("env", ParamType.MAP, null, "variables added to the clean environment"))
                .param(ParamSpec.optional("convention", ParamType.STRING, "nhc", "nhc (0 pass, else fail) or npd (0 ok, 1 problem, 2 unknown)"))
                .param(ParamSpec.optional("problem", ParamType.STRING, "fail", "npd: what exit code 1 means, warn or fail"))
                .param(ParamSpec.optional("timeout", ParamType.DURATION, null, "kill the script after this long (default: the check's timeout)"))
                .param(ParamSpec.optional("max_output", ParamType.BYTES, DEFAULT_MAX_OUTPUT, "output kept of stdout and stderr; the rest is read and dropped"))
                .field("exit_code", Unit.COUNT, "the script's exit code")
                .field("duration", Unit.SECONDS, "how long it ran")
                .field("output_bytes", Unit.BYTES, "how much it printed on stdout")
                .field("killed_processes", Unit.COUNT, "processes it left running that nhc killed")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        List<String> command = ctx.params().strings("command");
        if (command.isEmpty() || command.get(0).isBlank()) {
            return unknown("script: 'command' is empty");
        }
        String convention = ctx.params().string("convention") == null ? "nhc" : ctx.params().string("convention").toLowerCase(Locale.ROOT);
        if (!convention.equals("nhc") && !convention.equals("npd")) {
            return unknown("script: convention must be nhc or npd, not '" + convention + "'");
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : ctx.params().map("env").entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().contains("=") || e.getKey().indexOf('\0') >= 0
                    || String.valueOf(e.getValue()).indexOf('\0') >= 0) {
                return unknown("script: env variable '" + e.getKey() + "' has a name or value a process environment cannot hold");
            }
            env.put(e.getKey(), String.valueOf(e.getValue()));
        }
        Duration timeout = ctx.params().duration("timeout");
        Duration left = ctx.remaining().minusMillis(200);
        if (timeout == null || timeout.compareTo(left) > 0) {
            timeout = left.isNegative() ? Duration.ofMillis(100) : left;
        }
        long cap = ctx.params().integer("max_output") == null ? DEFAULT_MAX_OUTPUT : ctx.params().integer("max_output");
        ProcessRunner.Result o;
        try (TrustedCommand cmd = TrustedCommand.prepare(command, runningAsRoot.getAsBoolean())) {
            o = cmd.runner().env(env).timeout(timeout).outputCap((int) Math.min(cap, 64L << 20)).run();
        } catch (TrustedCommand.NotFoundException e) {
            return unknown("script " + command.get(0) + " " + e.getMessage());
        } catch (UntrustedPathException e) {
            return unknown("refusing to run " + command.get(0) + " as root: " + e.getMessage());
        } catch (ProcessRunner.StartFailure e) {
            return unknown("script cannot run " + command.get(0) + ": " + e.reason());
        } catch (IOException e) {
            return unknown("refusing to run " + command.get(0) + ": cannot check who can change it: " + e.getMessage());
        }
        return judge(ctx, command.get(0), convention, o, timeout);
    }

    private static ProbeResult judge(ProbeContext ctx, String name, String convention, ProcessRunner.Result o, Duration timeout) {
        Observation obs = Observation.of("node").put("exit_code", o.timedOut() ? null : (long) o.exitCode())
                .put("duration", o.elapsed().toMillis() / 1000.0).put("output_bytes", o.stdoutBytes())
                .put("killed_processes", (long) o.killedChildren()).build();
        List<Finding> findings = new ArrayList<>();
        if (o.timedOut()) {
            findings.add(Finding.of("node", Severity.UNKNOWN, "script " + name + " did not finish within "
                    + timeout.toMillis() / 1000.0 + " s; killed it" + (o.killedChildren() > 0 ? " and " + o.killedChildren() + " processes it started" : "")));
            return new ProbeResult(List.of(obs), findings, null);
        }
        String out = o.stdout().strip();
        if (out.startsWith("{") && out.contains("\"nhc_findings\"")) {
            try {
                Object doc = JSON.std.anyFrom(out);
                if (!(doc instanceof Map<?, ?> m) || !m.containsKey("nhc_findings")) {
                    throw new IllegalArgumentException("the output is not an object with nhc_findings");
                }
                findings.addAll(ScriptFindings.read(m.get("nhc_findings")));
            } catch (IOException | IllegalArgumentException e) {
                String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe ? jpe.getOriginalMessage().lines().findFirst().orElse("")
                        + (jpe.getLocation() != null ? " at line " + jpe.getLocation().getLineNr() : "") : e.getMessage();
                findings.add(Finding.of("node", Severity.UNKNOWN, "script " + name + " printed nhc_findings JSON nhc cannot read: "
                        + why + (o.truncated() ? " (output was cut at max_output)" : "")));
                return new ProbeResult(List.of(obs), findings, null);
            }
        }
        Severity byExit = severityOfExit(ctx, convention, o.exitCode());
        // the exit code only adds a finding when the JSON findings do not already say as much
        boolean covered = findings.stream().anyMatch(f -> !byExit.isWorseThan(f.severity()));
        if (byExit != Severity.PASS && !covered) {
            String line = findings.isEmpty() ? o.firstLine() : "";
            String msg = !line.isEmpty() ? ScriptFindings.clip(line)
                    : "script " + name + " exited with code " + o.exitCode()
                    + (convention.equals("npd") && byExit == Severity.UNKNOWN && o.exitCode() != 2 ? " (npd: 0 ok, 1 problem, 2 unknown)" : "");
            findings.add(Finding.of("node", byExit, msg));
        }
        return new ProbeResult(List.of(obs), findings, null);
    }

    private static Severity severityOfExit(ProbeContext ctx, String convention, int exit) {
        if (exit == 0) {
            return Severity.PASS;
        }
        if (convention.equals("nhc")) {
            return Severity.FAIL;
        }
        if (exit == 1) {
            return "warn".equalsIgnoreCase(ctx.params().string("problem")) ? Severity.WARN : Severity.FAIL;
        }
        return Severity.UNKNOWN;
    }

    static ProbeResult unknown(String why) {
        return ProbeResult.builder().finding(Finding.of("node", Severity.UNKNOWN, why)).build();
    }
}
