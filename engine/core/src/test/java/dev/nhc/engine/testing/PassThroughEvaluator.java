package dev.nhc.engine.testing;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.eval.Evaluator;
import dev.nhc.model.Finding;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;

import java.util.ArrayList;
import java.util.List;

/**
 * An evaluator for engine tests (the engine cannot depend on the rules module): passes the probe's
 * own findings through and turns each observation into a PASS finding.
 */
public class PassThroughEvaluator implements Evaluator {
    @Override
    public void validate(CheckConfig check, ProbeSpec spec, Problems problems) {
        if (check.fail() != null && check.fail().isScalar() && "invalid".equals(check.fail().text())) {
            problems.add(check.fail().location(), "test evaluator rejects 'invalid'");
        }
    }

    @Override
    public List<Finding> evaluate(CheckConfig check, ProbeSpec spec, ProbeResult result, StateSection memory) {
        List<Finding> out = new ArrayList<>();
        result.observations().forEach(o -> out.add(new Finding(check.name(), o.entity(), dev.nhc.model.Severity.PASS,
                "observed " + o.fields(), null, null, o.fields())));
        result.findings().forEach(f -> out.add(f.withCheck(check.name())));
        return out;
    }
}
