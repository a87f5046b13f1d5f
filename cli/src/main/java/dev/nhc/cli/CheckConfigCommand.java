package dev.nhc.cli;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "check-config", description = {"Validate a config without running anything.",
        "Every problem is printed as FILE:LINE:COLUMN: message; exit 0 when valid, 2 when not."})
final class CheckConfigCommand implements Callable<Integer> {
    @Mixin
    ConfigOption config = new ConfigOption();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        Config cfg = config.load(ConfigLoader.standard(), System.err);
        if (cfg == null) {
            return ExitCodes.INVALID;
        }
        System.out.println(config.file() + ": valid, " + cfg.checks().size() + " checks");
        for (CheckConfig c : cfg.checks()) {
            System.out.println("  " + c.name() + " (" + c.use() + ")" + (c.on().toString().equals("*") ? "" : " on " + c.on())
                    + (c.every() != null ? " every " + dev.nhc.engine.run.Runner.human(c.every()) : ""));
        }
        return ExitCodes.OK;
    }
}
