package dev.nhc.dstack.e2e;

import dev.nhc.dstack.Daemon;
import dev.nhc.dstack.EngineCheckRunner;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.run.Runner;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The daemon as {@code nhc daemon} wires it (standard config loader, the engine's Runner, the rules
 * engine), plus the e2e flag probe from the test class path. Used by src/e2e/run-e2e.sh.
 */
public final class E2eDaemonMain {
    private E2eDaemonMain() {
    }

    public static void main(String[] args) {
        Path config = Path.of(args[0]);
        ConfigLoader loader = ConfigLoader.standard().enforceOwnership(false);
        Runner runner = new Runner(loader.registry(), loader.evaluator(), Clock.systemUTC());
        String node = "e2e-host";
        System.exit(Daemon.run(() -> loader.load(config), new EngineCheckRunner(runner, node, Map.of()), node, System.err));
    }
}
