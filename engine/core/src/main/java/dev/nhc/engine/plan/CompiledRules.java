package dev.nhc.engine.plan;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;

import java.util.List;
import java.util.Set;

/**
 * A check's rules, ready to judge observations: one finding per entity, PASS included, with the
 * severity its rules give. What happens next — {@code for:}, {@code on_unknown}, aggregation — is
 * the {@link dev.nhc.engine.policy.SeverityPolicy}'s business.
 */
public interface CompiledRules {

    /** Judges readable observations of check {@code checkName}. */
    List<Finding> judge(List<Observation> observations, String checkName);

    /**
     * The fields the rules test or the messages print, so that a probe can leave out a field that
     * costs extra to read when nothing reads it (see {@link dev.nhc.probe.ProbeContext#fieldWanted}).
     */
    Set<String> fieldsRead();
}
