package dev.nhc.cli;

import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.Settings;
import dev.nhc.probe.Params;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The options of {@code run} and {@code daemon} that override settings (command line beats config file), and who we are. */
final class Overrides {

    @Option(names = "--nvml-library", paramLabel = "PATH", description = "Use this libnvidia-ml.so.1 (overrides settings.nvml_library).")
    Path nvmlLibrary;

    @Option(names = "--hostname", paramLabel = "NAME",
            description = "Act as this host (for host selectors and Slurm); default: SLURMD_NODENAME under slurmd, else the short host name.")
    String hostname;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Keep state here (overrides settings.state_dir).")
    Path stateDir;

    Config apply(Config cfg) {
        if (nvmlLibrary == null && stateDir == null) {
            return cfg;
        }
        Map<String, Object> values = new LinkedHashMap<>(cfg.settings().values().asMap());
        if (nvmlLibrary != null) {
            values.put("nvml_library", nvmlLibrary.toString());
        }
        if (stateDir != null) {
            values.put("state_dir", stateDir.toString());
        }
        return new Config(cfg.file(), new Settings(new Params(values)), cfg.hostgroups(), cfg.checks(), cfg.sections());
    }
}
