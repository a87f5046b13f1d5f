package dev.nhc.checks.gpu;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;
import dev.nhc.rules.RulesEvaluator;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Judges a GPU probe's result the way {@code nhc run} does: a check {@code use: <probe>} loaded
 * through the real ConfigLoader (so the default rules must compile) and the real rules engine.
 */
public final class DefaultRules {
    private static final RulesEvaluator EVALUATOR = new RulesEvaluator();
    private static final ConfigLoader LOADER = new ConfigLoader(new ProbeRegistry(AllGpuProbes.PROBES), EVALUATOR, List.of());
    private static final Map<String, CheckConfig> CHECKS = new ConcurrentHashMap<>();

    private DefaultRules() {
    }

    /** One finding per entity (PASS included) plus the probe's own findings, with the check named after the probe. */
    public static List<Finding> judge(ProbeSpec spec, ProbeResult result) {
        CheckConfig check = CHECKS.computeIfAbsent(spec.name(), name -> {
            try {
                return LOADER.parse("test.yaml", "nhc: 1\nchecks:\n  - name: " + name + "\n    use: " + name + "\n", null).checks().get(0);
            } catch (Exception e) {
                throw new AssertionError("the default rules of " + name + " do not load: " + e.getMessage(), e);
            }
        });
        return EVALUATOR.evaluate(check, spec, result, StateSection.detached("rules"));
    }

    public static Severity worst(List<Finding> findings) {
        Severity s = Severity.PASS;
        for (Finding f : findings) {
            s = Severity.worst(s, f.severity());
        }
        return s;
    }
}
