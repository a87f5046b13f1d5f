package dev.nhc.cli;

import dev.nhc.cli.logging.Logging;
import dev.nhc.engine.action.VerdictAction;
import dev.nhc.daemon.DaemonSettings;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.model.Verdict;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.TextReport;
import dev.nhc.engine.run.RunLock;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.state.StateDirectory;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.plan.SiteJars;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

@Command(name = "run", sortOptions = false,
        description = {"Run the config's checks on this node and print the verdict.",
                "",
                "Checks run in parallel, each under its timeout (settings.check_timeout or the check's 'timeout:'), "
                        + "and the whole run ends within settings.deadline; a check that does not return in time is "
                        + "abandoned and named in the report. Only one run acts at a time on a node: a second run "
                        + "started while one is in progress says so and exits 0 without doing anything.",
                "",
                "With --slurm (automatic when slurmd runs nhc, i.e. SLURMD_NODENAME is set), the verdict is "
                        + "applied to Slurm afterwards: DRAIN or FAIL on failure, RESUME when nhc's own drain is healed."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc run --verbose                 every check with its duration, then every finding",
                "  nhc run --json | jq .findings     machine-readable verdict",
                "  nhc run --only root-fs gpu-ecc    just these checks (runs 'every:' checks even when not due)"})
final class RunCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Mixin
    ConfigOption config = new ConfigOption();

    @Option(names = {"-v", "--verbose"}, description = "Print one line per check with its duration, then every finding with what was observed.")
    boolean verbose;

    @Option(names = "--json", description = "Print exactly one JSON object: node, severity, duration_ms, findings, checks.")
    boolean json;

    @Option(names = "--only", arity = "1..*", paramLabel = "NAME", description = "Run only these checks (by name).")
    List<String> only = new ArrayList<>();

    @Option(names = "--slurm", description = "Apply the verdict to Slurm (DRAIN / FAIL / RESUME). Default when SLURMD_NODENAME is set.")
    boolean slurm;

    @Mixin
    Overrides overrides = new Overrides();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        boolean slurmMode = slurm || System.getenv("SLURMD_NODENAME") != null;
        Plan plan = config.load(Wiring.loader(), io.err());
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        String refused = overrides.refusal();
        if (refused != null) {
            io.err().println("nhc: " + refused + "; nothing was done");
            return ExitCodes.INVALID;
        }
        plan = overrides.apply(plan);
        Logging.apply(plan.settings());
        Optional<VerdictAction> action = Optional.empty();
        if (slurmMode) {
            action = ServiceLoader.load(VerdictAction.class, SiteJars.loader()).stream().map(ServiceLoader.Provider::get)
                    .filter(a -> a.name().equals("slurm")).findFirst();
            if (action.isEmpty()) {
                io.err().println("nhc: --slurm needs the Slurm integration (nhc-slurm-integration jar), which is not installed; nothing was done");
                return ExitCodes.INTERNAL;
            }
        }
        for (String name : only) {
            if (plan.check(name).isEmpty()) {
                io.err().println("nhc: --only " + name + ": no such check in " + config.file()
                        + dev.nhc.engine.config.Suggest.didYouMean(name, plan.checks().stream().map(c -> c.name()).toList()));
                return ExitCodes.INVALID;
            }
        }
        String node = NodeName.resolve(overrides.hostname, slurmMode);
        Path dir = plan.settings().stateDir();
        String[] holder = new String[1];
        Optional<RunLock> lock;
        try {
            lock = RunLock.tryAcquire(dir, holder);
        } catch (UntrustedPathException e) {
            io.err().println("nhc: " + StateDirectory.refusal(dir, e) + "; nothing was done");
            return ExitCodes.INTERNAL;
        } catch (IOException e) {
            io.err().println("nhc: cannot use state directory " + dir + ": " + e.getMessage() + " (set settings.state_dir); nothing was done");
            return ExitCodes.INTERNAL;
        }
        if (lock.isEmpty()) {
            if (RunLock.heldByDaemon(holder[0]) && slurmMode) {
                // bin/nhc-slurm comes here only when the daemon gave it no verdict (starting, stuck, another config, or no
                // slurm: section, so nothing acts on Slurm). Judging beside the daemon would race it over the same state:
                // say so where the admin looks (slurmd.log copies stdout) and do not pass as healthy.
                io.out().println("nhc: nhc " + holder[0] + " holds " + node + "'s checks but gave no verdict for Slurm; see its log"
                        + " (a config without a slurm: section does not act on Slurm). Nothing was judged by this run.");
                return ExitCodes.FAIL;
            } else if (RunLock.heldByDaemon(holder[0])) {
                // The daemon judges and acts for this node; its verdict is on daemon.metrics_listen (/v1/verdict).
                io.err().println("nhc: nhc " + holder[0] + " holds " + node + "'s state and acts for it; this run does nothing"
                        + " (its verdict: curl -s http://" + DaemonSettings.of(plan).metricsListen() + "/v1/verdict)");
            } else {
                io.err().println("nhc: another run is in progress on " + node + " (" + holder[0] + "); this run does nothing");
            }
            return ExitCodes.OK;
        }
        try (RunLock held = lock.get()) {
            StateStore state = new StateStore(dir);
            action.map(a -> a.holds(state, node)).ifPresent(state::nodeHeld);
            PlanExecutor executor = new PlanExecutor(Clock.systemUTC());
            RunRequest req = RunRequest.of(plan, node, state).withOnly(new LinkedHashSet<>(only)).withHostName(NodeName.fullName(overrides.hostname));
            Verdict verdict = executor.run(req);
            List<String> notes = new ArrayList<>();
            if (held.note() != null) {
                notes.add(held.note());
            }
            boolean forcedFailure = false;
            if (action.isPresent()) {
                Instant deadline = verdict.started().plus(plan.settings().deadline());
                VerdictAction.ActionOutcome outcome = action.get().apply(verdict, plan, state, node, deadline);
                notes.addAll(outcome.lines());
                forcedFailure = outcome.forceFailure();
            }
            String unsaved = null;
            try {
                state.flush();
            } catch (IOException e) {
                // The verdict stands: a full or read-only disk must not keep nhc from judging the node.
                unsaved = "could not save state: " + e.getMessage();
            }
            notes.addAll(state.warnings());
            if (unsaved != null) {
                notes.add(unsaved);
            }
            if (json) {
                io.out().println(JsonReport.render(verdict, notes));
            } else {
                io.out().print(TextReport.render(verdict, verbose, notes));
            }
            io.out().flush();
            return ExitCodes.of(verdict.severity(), forcedFailure);
        } catch (IOException e) {
            io.err().println("nhc: cannot release the run lock in " + dir + ": " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
    }

}
