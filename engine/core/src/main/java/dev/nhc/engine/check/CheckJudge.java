package dev.nhc.engine.check;

import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static dev.nhc.units.Durations.human;

/**
 * What one run of a check comes to, for its {@link CheckRun}: what the probe saw judged by the
 * check's rules and settled by the severity policy ({@code for:} streaks in the check's state,
 * {@code on_unknown}); a run that saw nothing (a timeout, an error, rules that could not judge)
 * settled without touching the streaks; and an {@code every:} check's last result carried over.
 */
final class CheckJudge {
    private final String name;
    private final SeverityPolicy policy;
    private final CheckState state;

    CheckJudge(String name, SeverityPolicy policy, CheckState state) {
        this.name = name;
        this.policy = policy;
        this.state = state;
    }

    CheckResult skipped(PlannedCheck c, String why) {
        return CheckResult.skipped(name, c.check().use(), c.spec().tags(), why);
    }

    CheckResult judged(PlannedCheck c, OnUnknown onUnknown, ProbeResult pr, long ms) {
        if (pr.skipped() != null) {
            return new CheckResult(name, c.check().use(), c.spec().tags(), CheckStatus.SKIPPED, Severity.PASS, ms, List.of(), List.of(),
                    pr.skipped());
        }
        List<Finding> raw = new ArrayList<>();
        List<Observation> readable = new ArrayList<>();
        for (Observation o : pr.observations()) {
            if (o.readable()) {
                readable.add(o);
            } else {
                raw.add(policy.unreadable(c, o));
            }
        }
        try {
            raw.addAll(c.rules().judge(readable, name));
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(CheckJudge.class).debug("rules of check {} failed", name, e);
            raw.add(policy.couldNotRun(c, "cannot judge: " + describe(e)));
            return undecided(c, onUnknown, CheckStatus.COMPLETED, raw, pr.observations(), ms, null);
        }
        List<Finding> settled = policy.settle(c.check(), raw, state.streaks(), onUnknown);
        return result(c, CheckStatus.COMPLETED, settled, pr.observations(), ms, null);
    }

    /** A probe that did not return within {@code limit}: the policy says what a hang of it means. */
    CheckResult timedOut(PlannedCheck c, OnUnknown onUnknown, Duration limit, boolean byRunDeadline, long ms) {
        String why = "probe " + c.check().use() + " did not finish within " + human(limit) + (byRunDeadline ? " (the run's deadline)" : "")
                + "; abandoned";
        LoggerFactory.getLogger(CheckJudge.class).warn("check {}: {}", name, why);
        return undecided(c, onUnknown, CheckStatus.TIMED_OUT, List.of(policy.timedOut(c, why)), List.of(), ms, why);
    }

    /** A probe that threw (or a run its owner stopped): the check cannot decide. */
    CheckResult couldNotRun(PlannedCheck c, OnUnknown onUnknown, String why, long ms) {
        return undecided(c, onUnknown, CheckStatus.ERROR, List.of(policy.couldNotRun(c, why)), List.of(), ms, why);
    }

    /** A run that saw nothing: only on_unknown applies, its for: streaks are not touched. */
    private CheckResult undecided(PlannedCheck c, OnUnknown onUnknown, CheckStatus status, List<Finding> raw, List<Observation> observations,
                                  long ms, String note) {
        return result(c, status, policy.settleUndecided(c.check(), raw, onUnknown), observations, ms, note);
    }

    /** An every: check that is not due: what it found when it last ran, saying so. */
    CheckResult carriedOver(PlannedCheck c, Instant now, Instant next) {
        Instant last = next.minus(c.every());
        String note = "not due (every " + human(c.every()) + "); last run " + human(Duration.between(last, now)) + " ago, next in "
                + human(Duration.between(now, next)) + "; showing its last result";
        return result(c, CheckStatus.COMPLETED, state.lastFindings(), List.of(), 0, note);
    }

    private CheckResult result(PlannedCheck c, CheckStatus status, List<Finding> settled, List<Observation> observations, long ms,
                               String note) {
        return new CheckResult(name, c.check().use(), c.spec().tags(), status, policy.ofFindings(settled), ms, settled, observations, note);
    }

    /** How a run that threw is described in its finding ("cannot run: " + this). */
    static String describe(Throwable t) {
        String m = t.getMessage();
        if (t instanceof NoClassDefFoundError || t instanceof UnsatisfiedLinkError) {
            return t.getClass().getSimpleName() + ": " + m;
        }
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m.replace('\n', ' ');
    }
}
