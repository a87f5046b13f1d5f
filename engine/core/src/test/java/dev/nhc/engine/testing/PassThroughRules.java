package dev.nhc.engine.testing;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.plan.CompiledRules;
import dev.nhc.engine.plan.RulesCompiler;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Rules for engine tests (the engine cannot depend on the rules module): every observation is a
 * PASS finding, unless its field {@code severity} names another severity (so a test probe can
 * stand for rules that fire). A check with {@code fail: invalid} does not compile.
 */
public class PassThroughRules implements RulesCompiler {
    @Override
    public CompiledRules compile(CheckConfig check, ProbeSpec spec, Problems problems) {
        if (check.fail() != null && check.fail().isScalar() && "invalid".equals(check.fail().text())) {
            problems.add(check.fail().location(), "test rules reject 'invalid'");
            return null;
        }
        Set<String> read = fieldsRead(check, spec);
        return new CompiledRules() {
            @Override
            public List<Finding> judge(List<Observation> observations, String checkName) {
                List<Finding> out = new ArrayList<>();
                for (Observation o : observations) {
                    Severity s = o.get("severity") instanceof String text ? Severity.parse(text) : Severity.PASS;
                    out.add(new Finding(checkName, o.entity(), s, o.get("message") instanceof String m ? m : "observed " + o.fields(),
                            null, null, o.fields()));
                }
                return out;
            }

            @Override
            public Set<String> fieldsRead() {
                return read;
            }
        };
    }

    /** Every field of the probe; a test overrides this to see what a probe leaves out. */
    public Set<String> fieldsRead(CheckConfig check, ProbeSpec spec) {
        Set<String> all = new LinkedHashSet<>();
        for (FieldSpec f : spec.fields()) {
            all.add(f.name());
        }
        return all;
    }
}
