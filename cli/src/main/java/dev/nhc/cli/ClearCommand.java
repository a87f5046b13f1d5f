package dev.nhc.cli;

import dev.nhc.daemon.DaemonClient;
import dev.nhc.daemon.DaemonSettings;
import dev.nhc.engine.check.CheckState;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.run.RunLock;
import dev.nhc.engine.state.StateStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "clear", description = {"Forget what nhc remembers about checks: latched fatal events (e.g. a fatal XID "
        + "that stays failing until reboot), counters and consecutive-run counts.",
        "Run it after a repair that did not need a reboot; the next run judges the node afresh."})
final class ClearCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Mixin
    ConfigOption config = new ConfigOption();

    @Parameters(arity = "1..*", paramLabel = "CHECK", description = "The checks to clear (by name).")
    List<String> checks;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "The state directory (overrides settings.state_dir).")
    Path stateDir;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        Plan plan = config.load(Wiring.loader(), io.err());
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        for (String name : checks) {
            if (plan.check(name).isEmpty()) {
                io.err().println("nhc: clear " + name + ": no such check in " + config.file()
                        + dev.nhc.engine.config.Suggest.didYouMean(name, plan.checks().stream().map(c -> c.name()).toList()));
                return ExitCodes.INVALID;
            }
        }
        Path dir = stateDir != null ? stateDir : plan.settings().stateDir();
        String[] holder = new String[1];
        try {
            Optional<RunLock> lock = RunLock.tryAcquire(dir, holder);
            if (lock.isEmpty()) {
                if (RunLock.heldByDaemon(holder[0])) {
                    return clearThroughTheDaemon(plan, holder[0]);
                }
                io.err().println("nhc: a run is in progress (" + holder[0] + "); try again when it has finished");
                return ExitCodes.INTERNAL;
            }
            try (RunLock held = lock.get(); StateStore state = new StateStore(dir)) {
                for (String name : checks) {
                    // Nothing runs while the lock is held: the check's state is forgotten now, as its unit in the daemon does.
                    new CheckState(state, name).forget(plan.check(name).get().probe());
                    io.out().println("cleared " + name);
                }
            }
        } catch (dev.nhc.engine.files.UntrustedPathException e) {
            io.err().println("nhc: " + dev.nhc.engine.state.StateDirectory.refusal(dir, e));
            return ExitCodes.INTERNAL;
        } catch (IOException e) {
            io.err().println("nhc: cannot change state in " + dir + ": " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        return ExitCodes.OK;
    }

    /** The daemon holds the node's state: it forgets what these checks remember itself and runs them again. */
    private int clearThroughTheDaemon(Plan plan, String holder) {
        Path socket = DaemonSettings.of(plan).socket();
        if (socket == null) {
            io.err().println("nhc: nhc " + holder + " holds the state and has no socket (daemon.socket) to ask; "
                    + "stop it, clear, and start it again");
            return ExitCodes.INTERNAL;
        }
        try {
            DaemonClient.Reply r = DaemonClient.clear(socket, checks);
            if (!r.ok()) {
                io.err().println("nhc: the daemon (" + socket + ") did not clear: " + r.text());
                return ExitCodes.INTERNAL;
            }
            io.out().print(r.text());
            io.out().flush();
            return r.exitCode();
        } catch (IOException e) {
            io.err().println("nhc: nhc " + holder + " holds the state but does not answer on " + socket + " (" + e.getMessage()
                    + "); stop it, clear, and start it again");
            return ExitCodes.INTERNAL;
        }
    }
}
