package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** Loads checks through the real ConfigLoader (so errors carry real positions) and judges observations with them. */
final class Rules {
    static final String FILE = "nhc.yaml";
    static final String HEAD = "nhc: 1\nchecks:\n";

    final RulesEvaluator evaluator = new RulesEvaluator();
    final ConfigLoader loader = new ConfigLoader(new ProbeRegistry(List.of(new DiskLikeProbe())), evaluator, List.of());

    /** Parses "nhc: 1 / checks:" followed by {@code checks}. */
    Config load(String checks) throws ConfigException {
        return loader.parse(FILE, HEAD + checks, null);
    }

    CheckConfig checkYaml(String checks) throws ConfigException {
        return load(checks).checks().get(0);
    }

    /** A single check "c" using the test probe with the given extra lines (each indented by 4). */
    CheckConfig check(String... lines) throws ConfigException {
        StringBuilder sb = new StringBuilder("  - name: c\n    use: " + DiskLikeProbe.NAME + "\n");
        for (String l : lines) {
            sb.append("    ").append(l).append('\n');
        }
        return checkYaml(sb.toString());
    }

    ConfigException error(String checks) {
        return assertThrows(ConfigException.class, () -> load(checks));
    }

    List<Finding> evaluate(CheckConfig check, StateSection memory, Observation... observations) {
        return evaluator.evaluate(check, DiskLikeProbe.SPEC, new ProbeResult(List.of(observations), List.of(), null), memory);
    }

    Finding one(CheckConfig check, Observation o) {
        List<Finding> out = evaluate(check, StateSection.detached("t"), o);
        if (out.size() != 1) {
            throw new AssertionError("expected one finding, got " + out);
        }
        return out.get(0);
    }

    static Observation obs(String entity, Object... kv) {
        Observation.Builder b = Observation.of(entity);
        for (int i = 0; i < kv.length; i += 2) {
            b.put((String) kv[i], kv[i + 1]);
        }
        return b.build();
    }

    static Observation obs(Map<String, Object> fields) {
        return new Observation("/", fields);
    }
}
