package dev.nhc.dstack;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.eval.Evaluator;
import dev.nhc.model.Finding;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;

import java.util.List;

/** A config loader that knows a few named test probes (the daemon tests run checks through their own CheckRunner). */
final class TestConfigs {
    private TestConfigs() {
    }

    static ConfigLoader loader() {
        List<Probe> probes = List.of(probe("test.fast"), probe("test.slow"), probe("gpu.test"));
        Evaluator none = new Evaluator() {
            @Override
            public void validate(CheckConfig check, ProbeSpec spec, Problems problems) {
            }

            @Override
            public List<Finding> evaluate(CheckConfig check, ProbeSpec spec, ProbeResult result, StateSection memory) {
                return result.findings();
            }
        };
        return new ConfigLoader(new ProbeRegistry(probes), none, List.of(new DstackSection())).enforceOwnership(false);
    }

    private static Probe probe(String name) {
        return new Probe() {
            @Override
            public ProbeSpec spec() {
                return ProbeSpec.builder(name, "test probe " + name).build();
            }

            @Override
            public ProbeResult probe(ProbeContext ctx) {
                return ProbeResult.of();
            }
        };
    }

    static Config parse(String yaml) throws Exception {
        return loader().parse("test.yaml", yaml, null);
    }
}
