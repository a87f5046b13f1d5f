package dev.nhc.engine.policy;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one place that decides severity: how findings become a check's result ({@code for:},
 * {@code on_unknown}, a timed-out or unreadable check) and how results combine into a verdict, by
 * its {@link SeverityOrder} (Spring Boot Actuator's {@code StatusAggregator}). What a severity means
 * outside is a mapping of its own, each beside what it maps to: the exit code ({@link ExitCodes}),
 * Slurm's DRAIN/FAIL/RESUME (slurm-integration), dstack's 0/10/20 (dstack-integration). The
 * contract is the table in docs/DESIGN.md. Whoever runs checks is given the policy (the executor,
 * the daemon and through it its plugins) rather than reaching for {@link #STANDARD}.
 */
public final class SeverityPolicy {
    public static final SeverityPolicy STANDARD = new SeverityPolicy(SeverityOrder.STANDARD);

    private final SeverityOrder order;

    public SeverityPolicy(SeverityOrder order) {
        this.order = order;
    }

    // ---- aggregation

    public SeverityOrder order() {
        return order;
    }

    /** A check's severity: the worst of its findings, PASS when it has none. */
    public Severity ofFindings(List<Finding> findings) {
        Severity s = order.best();
        for (Finding f : findings) {
            s = order.worst(s, f.severity());
        }
        return s;
    }

    /** A verdict: the worst of the checks that ran; a skipped check does not count. */
    public Verdict verdict(String node, Instant started, long durationMs, List<CheckResult> checks) {
        Severity s = order.best();
        for (CheckResult c : checks) {
            if (c.status() != CheckStatus.SKIPPED) {
                s = order.worst(s, c.severity());
            }
        }
        return new Verdict(node, started, durationMs, checks, s);
    }

    // ---- a check's findings

    /**
     * A check's findings as they count: {@code for: N} first (a finding counts only once its
     * entity has been that bad for N runs in a row; {@code memory} keeps the streaks), then
     * {@code on_unknown} (what "could not decide" counts as: the check's, else the config's).
     */
    public List<Finding> settle(CheckConfig check, List<Finding> raw, ProbeState memory, OnUnknown configDefault) {
        return onUnknown(check, ForRuns.apply(this, check.forRuns(), raw, memory), configDefault);
    }

    /**
     * The findings of a check that saw nothing this run: its probe timed out or threw, or its rules
     * could not judge. Only {@code on_unknown} applies. {@code for: N} neither counts this run nor
     * forgets the streaks it keeps: they are about what the probe saw, and it saw nothing. So a
     * timeout that FAILs by its spec counts at once, as it must: the daemon does not start a check
     * again while its probe hangs, so N runs in a row would never come.
     */
    public List<Finding> settleUndecided(CheckConfig check, List<Finding> raw, OnUnknown configDefault) {
        return onUnknown(check, raw, configDefault);
    }

    private List<Finding> onUnknown(CheckConfig check, List<Finding> findings, OnUnknown configDefault) {
        OnUnknown policy = check.onUnknown() != null ? check.onUnknown() : configDefault;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            out.add(f.severity() == Severity.UNKNOWN ? f.withSeverity(unknownCountsAs(policy)) : f);
        }
        return out;
    }

    public Severity unknownCountsAs(OnUnknown policy) {
        return switch (policy) {
            case IGNORE -> Severity.UNKNOWN;
            case WARN -> Severity.WARN;
            case FAIL -> Severity.FAIL;
        };
    }

    /** An entity the probe saw but could not read: the check cannot decide for it. */
    public Finding unreadable(PlannedCheck check, Observation o) {
        return new Finding(check.name(), o.entity(), Severity.UNKNOWN, o.problem(), Remedy.NONE, null, o.fields());
    }

    /**
     * A probe that did not return in time. FAIL for probes whose spec says a hang means sickness
     * (a hung NVML call is a sick GPU; the node needs a reboot), UNKNOWN for the others.
     */
    public Finding timedOut(PlannedCheck check, String why) {
        boolean sick = check.spec().timeoutFails();
        return new Finding(check.name(), Entity.NODE, sick ? Severity.FAIL : Severity.UNKNOWN, why,
                sick ? Remedy.REBOOT : Remedy.NONE, sick ? check.check().slurmState() : null, Map.of());
    }

    /** A probe that threw, or rules that could not judge: the check cannot decide. */
    public Finding couldNotRun(PlannedCheck check, String why) {
        return new Finding(check.name(), Entity.NODE, Severity.UNKNOWN, why, Remedy.NONE, null, Map.of());
    }
}
