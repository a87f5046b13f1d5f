package dev.nhc.cli;

import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.run.RunLock;
import dev.nhc.engine.state.StateStore;
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
        Config cfg = config.load(ConfigLoader.standard(), System.err);
        if (cfg == null) {
            return ExitCodes.INVALID;
        }
        for (String name : checks) {
            if (cfg.check(name).isEmpty()) {
                System.err.println("nhc: clear " + name + ": no such check in " + config.file()
                        + dev.nhc.engine.config.Suggest.didYouMean(name, cfg.checks().stream().map(c -> c.name()).toList()));
                return ExitCodes.INVALID;
            }
        }
        Path dir = stateDir != null ? stateDir : cfg.settings().stateDir();
        String[] holder = new String[1];
        try {
            Optional<RunLock> lock = RunLock.tryAcquire(dir, holder);
            if (lock.isEmpty()) {
                System.err.println("nhc: a run is in progress (" + holder[0] + "); try again when it has finished");
                return ExitCodes.INTERNAL;
            }
            try (RunLock held = lock.get()) {
                StateStore state = new StateStore(dir);
                dev.nhc.engine.plan.ProbeRegistry registry = dev.nhc.engine.plan.ProbeRegistry.load();
                for (String name : checks) {
                    dev.nhc.engine.state.StateSection section = state.section("check." + name);
                    String use = cfg.check(name).get().use();
                    registry.find(use).ifPresentOrElse(p -> p.clear(section), section::clear);
                    state.section("rules." + name).clear();
                    state.section("schedule").remove("last_run." + name);
                    state.section("schedule").remove("last_findings." + name);
                    System.out.println("cleared " + name);
                }
                state.flush();
            }
        } catch (dev.nhc.engine.files.UntrustedPathException e) {
            System.err.println("nhc: " + dev.nhc.engine.state.StateDirectory.refusal(dir, e));
            return ExitCodes.INTERNAL;
        } catch (IOException e) {
            System.err.println("nhc: cannot change state in " + dir + ": " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        return ExitCodes.OK;
    }
}
