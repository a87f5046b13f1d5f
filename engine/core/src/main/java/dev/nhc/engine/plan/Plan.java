package dev.nhc.engine.plan;

import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.Settings;

import java.util.List;
import java.util.Optional;

/**
 * A loaded config made ready to run: its settings and sections, and every enabled check with its
 * probe and compiled rules. {@code nhc run}, {@code nhc replay} and {@code nhc daemon} all execute
 * a Plan through the one {@link dev.nhc.engine.run.PlanExecutor}.
 */
public record Plan(Config config, List<PlannedCheck> checks) {

    public Plan {
        checks = List.copyOf(checks);
    }

    public Settings settings() {
        return config.settings();
    }

    public Optional<PlannedCheck> check(String name) {
        for (PlannedCheck c : checks) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    public Plan withChecks(List<PlannedCheck> others) {
        return new Plan(config, others);
    }

    public Plan withSettings(Settings settings) {
        return new Plan(config.withSettings(settings), checks);
    }
}
