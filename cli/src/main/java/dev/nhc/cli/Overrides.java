package dev.nhc.cli;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.config.Settings;
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
