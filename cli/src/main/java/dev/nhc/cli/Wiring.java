package dev.nhc.cli;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.rules.RuleEngine;

/**
 * How the command puts nhc together: the probes found on the class path (each created only when
 * a config uses it), the rule engine (mandatory, so wired here rather than looked up), and the
 * integrations' config sections.
 */
final class Wiring {
    private Wiring() {
    }

    static ConfigLoader loader() {
        return new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), ConfigLoader.sectionsOnClassPath());
    }
}
