package dev.nhc.dstack.e2e;

import dev.nhc.daemon.Daemon;
import dev.nhc.daemon.DaemonPlugin;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.rules.RuleEngine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The daemon as {@code nhc daemon} wires it (every probe and config section on the class path, the
 * rule engine, the plugins found by ServiceLoader), plus the e2e flag probe from the test class
 * path. Used by src/e2e/run-e2e.sh.
 */
public final class E2eDaemonMain {
    private E2eDaemonMain() {
    }

    public static void main(String[] args) {
        Path config = Path.of(args[0]);
        ConfigLoader loader = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), ConfigLoader.sectionsOnClassPath())
                .enforceOwnership(false);
        List<DaemonPlugin> plugins = new ArrayList<>();
        ServiceLoader.load(DaemonPlugin.class).forEach(plugins::add);
        String node = "e2e-host";
        System.exit(Daemon.run(() -> loader.load(config), SeverityPolicy.STANDARD, node, null, System.err, Map.of(), plugins, List.of()));
    }
}
