package dev.nhc.checks.gpu;

import dev.nhc.checks.Judge;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.RuleEngine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Judges a GPU probe's result the way {@code nhc run} does: a check {@code use: <probe>} planned
 * through the real ConfigLoader (so the default rules must compile) and the real rule engine;
 * unreadable entities as the severity policy makes them.
 */
public final class DefaultRules {
    private static final ConfigLoader LOADER = new ConfigLoader(new ProbeRegistry(AllGpuProbes.PROBES), new RuleEngine(), List.of());
    private static final Map<String, PlannedCheck> CHECKS = new ConcurrentHashMap<>();

    private DefaultRules() {
    }

    /** One finding per entity (PASS included), with the check named after the probe. */
    public static List<Finding> judge(ProbeSpec spec, ProbeResult result) {
        PlannedCheck check = CHECKS.computeIfAbsent(spec.name(), name -> {
            try {
                return LOADER.parse("test.yaml", "nhc: 1\nchecks:\n  - name: " + name + "\n    use: " + name + "\n", null).checks().get(0);
            } catch (Exception e) {
                throw new AssertionError("the default rules of " + name + " do not load: " + e.getMessage(), e);
            }
        });
        return Judge.judge(check, result);
    }

    public static Severity worst(List<Finding> findings) {
        return SeverityPolicy.STANDARD.ofFindings(findings);
    }
}
