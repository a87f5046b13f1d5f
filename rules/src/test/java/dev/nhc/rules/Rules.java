package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.plan.CompiledRules;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.Entity;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.state.StateSection;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** Loads checks through the real ConfigLoader (so errors carry real positions) and judges observations with them. */
final class Rules {
    static final String FILE = "nhc.yaml";
    static final String HEAD = "nhc: 1\nchecks:\n";

    final ConfigLoader loader = new ConfigLoader(new ProbeRegistry(List.of(new DiskLikeProbe())), new RuleEngine(), List.of());

    /** Parses "nhc: 1 / checks:" followed by {@code checks}. */
    Plan load(String checks) throws ConfigException {
        return loader.parse(FILE, HEAD + checks, null);
    }

    CheckConfig checkYaml(String checks) throws ConfigException {
        return load(checks).config().checks().get(0);
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

    CompiledRules compile(CheckConfig check) {
        return new RuleEngine().compile(check, DiskLikeProbe.SPEC, new Problems());
    }

    /** The check's rules, then the severity policy's for: and on_unknown, as the executor applies them. */
    List<Finding> evaluate(CheckConfig check, StateSection memory, Observation... observations) {
        CompiledRules rules = new RuleEngine().compile(check, DiskLikeProbe.SPEC, new Problems());
        List<Finding> raw = rules.judge(List.of(observations), check.name());
        return SeverityPolicy.STANDARD.settle(check, raw, memory, OnUnknown.IGNORE);
    }

    Finding one(CheckConfig check, Observation o) {
        List<Finding> out = evaluate(check, StateSection.detached("t"), o);
        if (out.size() != 1) {
            throw new AssertionError("expected one finding, got " + out);
        }
        return out.get(0);
    }

    static Observation obs(String entity, Object... kv) {
        Observation.Builder b = Observation.of(entity.equals("node") ? Entity.NODE : Entity.of(Entity.Kind.OTHER, entity));
        for (int i = 0; i < kv.length; i += 2) {
            b.put((String) kv[i], kv[i + 1]);
        }
        return b.build();
    }

    static Observation obs(Map<String, Object> fields) {
        return new Observation(Entity.of(Entity.Kind.MOUNT, "/"), fields);
    }
}
