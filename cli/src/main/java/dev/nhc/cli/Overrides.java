package dev.nhc.cli;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.config.TrustedValues;
import dev.nhc.probe.ParamSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The options of {@code run} and {@code daemon} that override settings (command line beats config file), and who we are. */
final class Overrides {

    @Option(names = "--nvml-library", paramLabel = "PATH", description = "Use this libnvidia-ml.so.1 (overrides settings.nvml_library).")
    Path nvmlLibrary;

    @Option(names = "--hostname", paramLabel = "NAME",
            description = "Act as this host (for host selectors and Slurm); default: SLURMD_NODENAME under slurmd, else the short host name.")
    String hostname;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Keep state here (overrides settings.state_dir).")
    Path stateDir;

    /**
     * Why a path given here may not be used, or null: as root, --nvml-library is held to the rule
     * settings.nvml_library is (a library only root can change), and a refusal ends the run
     * before anything is loaded, as a config error does.
     */
    String refusal() {
        if (nvmlLibrary == null || !Ownership.runningAsRoot()) {
            return null;
        }
        String why = TrustedValues.refusal(ParamSpec.PathUse.LOAD, nvmlLibrary.toString());
        return why == null ? null : "--nvml-library: " + why;
    }

    Plan apply(Plan plan) {
        Settings s = plan.settings();
        if (nvmlLibrary != null) {
            s = s.with(Settings.NVML_LIBRARY, nvmlLibrary.toString());
        }
        if (stateDir != null) {
            s = s.with(Settings.STATE_DIR, stateDir.toString());
        }
        return s == plan.settings() ? plan : plan.withSettings(s);
    }
}
