package dev.nhc.cli;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.ConfigProblem;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;

/** The {@code -c FILE} option shared by the commands that read a config, and the one place config errors are printed. */
final class ConfigOption {
    static final String DEFAULT = "/etc/nhc/nhc.yaml";

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", defaultValue = DEFAULT,
            description = "The config file (default: ${DEFAULT-VALUE}).")
    Path file;

    Path file() {
        return file;
    }

    /** Loads the config, or prints every problem as file:line:column and returns null. */
    Plan load(ConfigLoader loader, PrintWriter err) {
        try {
            return loader.load(file);
        } catch (ConfigException e) {
            JsonOnError.configProblems(e.problems());
            for (ConfigProblem p : e.problems()) {
                err.println(p);
            }
            err.println("nhc: the config is invalid; nothing was done");
            return null;
        }
    }
}
