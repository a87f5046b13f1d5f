package dev.nhc.checks.dcgm;

import dev.nhc.checks.host.Executables;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.probe.ProbeContext;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code dcgmi} command line tool as both DCGM probes use it: where it is, how to run it under
 * the check's time limit, and how to tell "DCGM is not there or not running" from a real answer.
 */
final class Dcgmi {
    static final String INSTALL_HINT = "install DCGM (package datacenter-gpu-manager, or datacenter-gpu-manager-4-core) "
            + "or set 'with: { dcgmi: PATH }' / settings.dcgmi";
    static final String START_HINT = "start the DCGM host engine: systemctl start nvidia-dcgm (or run nv-hostengine)";
    // what is left of the check's time once dcgmi is killed: enough to report the kill
    private static final Duration REPORT_SLACK = Duration.ofMillis(300);

    private final String program;

    private Dcgmi(String program) {
        this.program = program;
    }

    /** The configured path, or the bare name looked up in the system directories. */
    String program() {
        return program;
    }

    /**
     * Finds dcgmi: {@code with: { dcgmi }}, else {@code settings.dcgmi}, else the system
     * directories (never nhc's own PATH or /usr/local: root runs it, see {@link Executables}).
     * Throws with the place looked at when it is missing or not one root may run.
     */
    static Dcgmi locate(ProbeContext ctx, String configuredByCheck) throws DcgmUnavailable {
        String configured = configuredByCheck;
        String where = "with: { dcgmi }";
        if (configured == null && ctx.setting("dcgmi") != null) {
            configured = ctx.setting("dcgmi").toString();
            where = "settings.dcgmi";
        }
        String program = configured == null ? "dcgmi" : configured;
        // checked now, so that a missing DCGM is told apart from a failing one; checked again when run
        try (TrustedCommand cmd = Executables.prepare(List.of(program))) {
            return new Dcgmi(program);
        } catch (Executables.Unusable e) {
            if (!e.notFound()) {
                throw new DcgmUnavailable(e.getMessage() + (configured == null ? "" : " (from " + where + ")"));
            }
            throw new DcgmUnavailable(configured == null
                    ? "dcgmi not found in " + Executables.searched("dcgmi") + ": " + INSTALL_HINT
                    : "dcgmi not found at " + configured + " (from " + where + "): " + INSTALL_HINT);
        } catch (IOException e) {
            throw new DcgmUnavailable("cannot check dcgmi: " + e.getMessage());
        }
    }

    /** Runs dcgmi with these arguments; it is killed with everything it started when the check's time is up. */
    ProcessRunner.Result run(ProbeContext ctx, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(program);
        argv.addAll(List.of(args));
        Duration budget = ctx.remaining().minus(REPORT_SLACK);
        if (budget.compareTo(Duration.ofMillis(100)) < 0) {
            budget = Duration.ofMillis(100);
        }
        try (TrustedCommand cmd = Executables.prepare(argv)) {
            return Executables.runner(cmd).timeout(budget).outputCap(4 << 20).run();
        } catch (Executables.Unusable e) {
            throw new IOException(e.getMessage());
        }
    }

    /**
     * The admin-facing reason when dcgmi could not talk to the host engine, or null when the
     * output is something else. dcgmi words this differently across versions ("Unable to
     * connect to host engine", "unable to establish a connection to the specified host",
     * "Host engine connection invalid/disconnected").
     */
    static String hostEngineProblem(ProcessRunner.Result o) {
        String all = (o.stdout() + "\n" + o.stderr()).toLowerCase(Locale.ROOT);
        if (all.contains("unable to connect to host engine") || all.contains("unable to establish a connection")
                || all.contains("host engine connection invalid") || all.contains("connection to host engine")
                || all.contains("is the host engine running") || all.contains("host engine is not running")) {
            return "DCGM host engine is not reachable (dcgmi: " + quote(o) + "): " + START_HINT;
        }
        return null;
    }

    /** A short quote of what dcgmi said, for messages. */
    static String quote(ProcessRunner.Result o) {
        String line = o.firstLine();
        if (line.isEmpty()) {
            return "no output, exit code " + o.exitCode();
        }
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }

    /** dcgmi could not be used at all; the message tells the admin what to install or start. */
    static final class DcgmUnavailable extends Exception {
        private static final long serialVersionUID = 1L;

        DcgmUnavailable(String message) {
            super(message);
        }
    }
}
