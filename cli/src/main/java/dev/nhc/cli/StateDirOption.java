package dev.nhc.cli;

import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateDirectory;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --state-dir} option of the commands that only read nhc's state, and the one place that
 * state is opened for reading, after the config that names it.
 */
final class StateDirOption {
    @Option(names = "--state-dir", paramLabel = "DIR", description = "The state directory (overrides settings.state_dir).")
    Path dir;

    /**
     * The config and the state to read: {@code store} null when the directory does not exist yet;
     * {@code exitCode} set when the config is invalid or the state must not be read.
     */
    record Opened(Plan plan, Path dir, StateStore store, Integer exitCode) {
    }

    Opened open(ConfigOption config, PrintWriter err) {
        Plan plan = config.load(Wiring.loader(), err);
        if (plan == null) {
            return new Opened(null, null, null, ExitCodes.INVALID);
        }
        Path d = dir != null ? dir : plan.settings().stateDir();
        if (!Files.exists(d)) {
            return new Opened(plan, d, null, null);
        }
        StateStore store = new StateStore(d);
        try {
            store.checkDirectory();
        } catch (UntrustedPathException e) {
            err.println("nhc: " + StateDirectory.refusal(d, e));
            return new Opened(plan, d, null, ExitCodes.INTERNAL);
        } catch (IOException e) {
            err.println("nhc: cannot read the state in " + d + ": " + IoReason.of(e));
            return new Opened(plan, d, null, ExitCodes.INTERNAL);
        }
        return new Opened(plan, d, store, null);
    }
}
