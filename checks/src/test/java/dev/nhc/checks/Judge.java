package dev.nhc.checks;

import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeResult;

import java.util.ArrayList;
import java.util.List;

/**
 * A probe result judged by a planned check's rules as the executor judges it (unreadable entities
 * by the severity policy), without for: or on_unknown: for tests that run a probe themselves.
 */
public final class Judge {
    private Judge() {
    }

    public static List<Finding> judge(PlannedCheck check, ProbeResult result) {
        List<Finding> out = new ArrayList<>();
        List<Observation> readable = new ArrayList<>();
        for (Observation o : result.observations()) {
            if (o.readable()) {
                readable.add(o);
            } else {
                out.add(SeverityPolicy.STANDARD.unreadable(check, o));
            }
        }
        out.addAll(check.rules().judge(readable, check.name()));
        return out;
    }
}
