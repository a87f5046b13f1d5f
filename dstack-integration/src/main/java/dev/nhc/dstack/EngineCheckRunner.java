package dev.nhc.dstack;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Verdict;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.run.Runner;
import dev.nhc.engine.state.StateStore;

import java.util.Map;
import java.util.Set;

/**
 * The daemon's way to run one check: the engine's Runner limited to that check, so a daemon check is
 * judged exactly like the same check in {@code nhc run} (timeouts, abandonment, rules, on_unknown).
 * {@code services} are what the cli hands probes (e.g. an NVML session shared by all GPU checks).
 */
public final class EngineCheckRunner implements CheckRunner {
    private final Runner runner;
    private final String node;
    private final Map<Class<?>, Object> services;

    public EngineCheckRunner(Runner runner, String node, Map<Class<?>, Object> services) {
        this.runner = runner;
        this.node = node;
        this.services = Map.copyOf(services);
    }

    @Override
    public CheckResult run(Config config, CheckConfig check, StateStore state) {
        Verdict v = runner.run(RunRequest.of(config, node, state).withOnly(Set.of(check.name())).withServices(services));
        return v.checks().stream().filter(c -> c.name().equals(check.name())).findFirst()
                .orElseThrow(() -> new IllegalStateException("the runner returned no result for check " + check.name()));
    }
}
