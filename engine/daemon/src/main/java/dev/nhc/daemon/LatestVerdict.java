package dev.nhc.daemon;

import dev.nhc.engine.check.SavedResults;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The daemon's verdict: rebuilt by the severity policy from every check's latest result as each
 * comes in, saved in the state store (its own {@value #SECTION} section, in {@link SavedResults}'
 * form), and at start restored from there and served until every check has run again.
 */
final class LatestVerdict {
    static final String SECTION = "daemon";

    private final SeverityPolicy policy;
    private final String node;
    private final StateStore store;
    private final StateSaver saver;
    private final Consumer<String> log;
    private volatile Verdict verdict;
    /** The verdict is the one restored at start, until every check has run once. */
    private volatile boolean restored;

    LatestVerdict(SeverityPolicy policy, String node, StateStore store, StateSaver saver, Consumer<String> log) {
        this.policy = policy;
        this.node = node;
        this.store = store;
        this.saver = saver;
        this.log = log;
    }

    Verdict get() {
        return verdict;
    }

    /** Serves the last verdict saved before a restart until the checks have run again; returns it, or null. */
    Verdict restore() {
        Object saved = store.section(SECTION).get("verdict");
        SavedResults.Restored r = SavedResults.verdict(saved);
        if (saved != null && (r == null || r.checks().isEmpty())) {
            log.accept("not serving the verdict saved in " + store.dir().resolve(SECTION + ".json")
                    + ": it is not one nhc wrote (no check result in it can be read); judging afresh");
        }
        if (r == null || r.checks().isEmpty()) {
            return null;
        }
        verdict = policy.verdict(node, r.started(), 0, r.checks());
        restored = true;
        log.accept("serving the verdict of " + r.started() + " (" + verdict.severity().label() + ") until the checks have run again");
        if (verdict.severity() == Severity.FAIL) {
            store.nodeHeld("nhc's last verdict (of " + r.started() + ") failed the node");
        }
        return verdict;
    }

    /**
     * The verdict of these checks' latest results, saved; null when there is none yet, or while the
     * restored verdict is the better answer (until every check has run once).
     */
    Verdict rebuild(Collection<ScheduledCheck> checks) {
        Verdict v;
        synchronized (this) {
            List<CheckResult> results = new ArrayList<>();
            Instant latest = null;
            long ms = 0;
            boolean all = true;
            for (ScheduledCheck s : checks) {
                CheckResult r = s.last;
                Instant at = s.finishedAt;
                if (r == null || at == null) {
                    all = false;
                    continue;
                }
                results.add(r);
                ms = Math.max(ms, r.durationMs());
                latest = latest == null || at.isAfter(latest) ? at : latest;
            }
            if (results.isEmpty() || (restored && !all)) {
                return null;
            }
            restored = false;
            v = policy.verdict(node, latest, ms, results);
            verdict = v;
        }
        store.section(SECTION).put("verdict", SavedResults.verdict(verdict));
        saver.save(List.of(SECTION));
        return v;
    }
}
