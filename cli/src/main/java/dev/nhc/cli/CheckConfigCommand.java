package dev.nhc.cli;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.units.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "check-config", description = {"Validate a config without running anything.",
        "Every problem is printed as FILE:LINE:COLUMN: message; exit 0 when valid, 2 when not."})
final class CheckConfigCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Mixin
    ConfigOption config = new ConfigOption();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        Plan plan = config.load(Wiring.loader(), io.err());
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        io.out().println(config.file() + ": valid, " + plan.checks().size() + (plan.checks().size() == 1 ? " check" : " checks"));
        for (PlannedCheck p : plan.checks()) {
            CheckConfig c = p.check();
            io.out().println("  " + c.name() + " (" + c.use() + ")" + (c.on().toString().equals("*") ? "" : " on " + c.on())
                    + (c.every() != null ? " every " + Durations.human(c.every()) : ""));
        }
        return ExitCodes.OK;
    }
}
