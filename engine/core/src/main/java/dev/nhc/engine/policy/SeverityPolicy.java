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
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The one place that decides severity (Spring Boot Actuator's {@code SimpleStatusAggregator} and
 * {@code HttpCodeStatusMapper} in one): how findings become a check's result ({@code for:},
 * {@code on_unknown}, a timed-out or unreadable check), how results combine into a verdict, and what
 * a severity means outside — the exit code, Slurm's DRAIN/FAIL/RESUME, dstack's 0/10/20. The
 * contract is the table in docs/DESIGN.md, held here as {@link #ROWS}:
 *
 * <pre>
 * severity   exit  Slurm                                   dstack
 * pass       0     release (resume if nhc holds the node)  0
 * warn       0     no change                               10
 * unknown    0     no change (after on_unknown)            10, or 20 with on_unknown: fail
 * fail       1     hold: DRAIN, or FAIL for slurm_state    20
 * config invalid: exit 2, no action; nhc's own error: exit 3, no action
 * </pre>
 */
public final class SeverityPolicy {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAIL = 1;
    public static final int EXIT_INVALID = 2;
    public static final int EXIT_INTERNAL = 3;

    public static final int DSTACK_HEALTHY = 0;
    public static final int DSTACK_WARNING = 10;
    public static final int DSTACK_FAILURE = 20;

    /** One row of the contract. */
    public record Row(Severity severity, int rank, int exitCode, SlurmIntent.Kind slurm, int dstack) {
    }

    /** The contract, worst last: aggregation takes the highest rank. UNKNOWN ranks below WARN: "no opinion" never outranks a degradation. */
    public static final Map<Severity, Row> ROWS = rows(
            new Row(Severity.PASS, 0, EXIT_OK, SlurmIntent.Kind.RELEASE, DSTACK_HEALTHY),
            new Row(Severity.UNKNOWN, 1, EXIT_OK, SlurmIntent.Kind.NOTHING, DSTACK_WARNING),
            new Row(Severity.WARN, 2, EXIT_OK, SlurmIntent.Kind.NOTHING, DSTACK_WARNING),
            new Row(Severity.FAIL, 3, EXIT_FAIL, SlurmIntent.Kind.HOLD, DSTACK_FAILURE));

    public static final SeverityPolicy STANDARD = new SeverityPolicy();

    private static Map<Severity, Row> rows(Row... rows) {
        Map<Severity, Row> m = new EnumMap<>(Severity.class);
        for (Row r : rows) {
            m.put(r.severity(), r);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    // ---- aggregation

    public int rank(Severity s) {
        return ROWS.get(s).rank();
    }

    public Severity worst(Severity a, Severity b) {
        return rank(a) >= rank(b) ? a : b;
    }

    public boolean isWorse(Severity a, Severity than) {
        return rank(a) > rank(than);
    }

    /** A check's severity: the worst of its findings, PASS when it has none. */
    public Severity ofFindings(List<Finding> findings) {
        Severity s = Severity.PASS;
        for (Finding f : findings) {
            s = worst(s, f.severity());
        }
        return s;
    }

    /** A verdict: the worst of the checks that ran; a skipped check does not count. */
    public Verdict verdict(String node, Instant started, long durationMs, List<CheckResult> checks) {
        Severity s = Severity.PASS;
        for (CheckResult c : checks) {
            if (c.status() != CheckStatus.SKIPPED) {
                s = worst(s, c.severity());
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

    // ---- outside codes

    /** The process exit code of a run: 1 when the verdict fails or an action insists (the circuit breaker refused to drain). */
    public int exitCode(Severity verdict, boolean actionForcedFailure) {
        return actionForcedFailure ? EXIT_FAIL : ROWS.get(verdict).exitCode();
    }

    /**
     * dstack's health value (DCGM's 0/10/20) for a settled severity, straight from the table. A
     * finding that is still UNKNOWN here was kept so by its check's {@code on_unknown}
     * ({@link #settle} applied it): the config's default must not overrule that a second time.
     */
    public int dstackHealth(Severity s) {
        return ROWS.get(s).dstack();
    }

    /**
     * What the verdict asks of Slurm. A hold is FAIL when any failing finding asks for it (its
     * {@code slurm_state}, else {@code failureState}: the config's {@code slurm.failure_state}),
     * else DRAIN.
     */
    public SlurmIntent slurmIntent(Verdict verdict, SlurmState failureState) {
        SlurmIntent.Kind kind = ROWS.get(verdict.severity()).slurm();
        if (kind != SlurmIntent.Kind.HOLD) {
            return kind == SlurmIntent.Kind.RELEASE ? SlurmIntent.release() : SlurmIntent.nothing();
        }
        List<Finding> failures = verdict.findings(Severity.FAIL);
        SlurmState state = SlurmState.DRAIN;
        for (Finding f : failures) {
            SlurmState wanted = f.slurmState() != null ? f.slurmState() : failureState;
            if (wanted == SlurmState.FAIL) {
                state = SlurmState.FAIL;
            }
        }
        return new SlurmIntent(SlurmIntent.Kind.HOLD, state, failures);
    }
}
