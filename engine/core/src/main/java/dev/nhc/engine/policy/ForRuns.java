package dev.nhc.engine.policy;

import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeState;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code for: N}: a WARN or FAIL counts only once the entity has been at that severity or worse
 * for N consecutive runs. Until then the finding is reported one step down (PASS, or WARN while a
 * FAIL builds on top of N runs of warnings) with "fail condition met 2 of 3 consecutive runs: …",
 * so the admin sees it coming. Per entity, the memory keeps two streaks, capped at N so that a
 * steady state writes nothing: runs at WARN-or-worse and runs at FAIL. A PASS resets both; an
 * UNKNOWN (no data) leaves them as they are; an entity that is no longer observed is forgotten.
 * Only a run in which the check judged what its probe saw comes here: a probe that timed out or
 * threw saw nothing, and {@link SeverityPolicy#settleUndecided} leaves every streak alone. Streaks
 * that were lost with the memory's state ({@link ProbeState#lostBecause()}) count as met: starting
 * them again would pass a failing node for N-1 runs, and resume it if nhc held it.
 */
final class ForRuns {
    private static final String WARN = "warn";
    private static final String FAIL = "fail";

    private ForRuns() {
    }

    static List<Finding> apply(SeverityPolicy policy, int forRuns, List<Finding> findings, ProbeState memory) {
        if (forRuns <= 1) {
            memory.clear();
            return findings;
        }
        Map<String, List<Finding>> byEntity = new LinkedHashMap<>();
        for (Finding f : findings) {
            byEntity.computeIfAbsent(key(f), k -> new ArrayList<>()).add(f);
        }
        Map<String, Severity> allowed = new LinkedHashMap<>();
        Map<String, long[]> streaks = new LinkedHashMap<>();
        for (Map.Entry<String, List<Finding>> e : byEntity.entrySet()) {
            long[] s = update(policy, e.getKey(), e.getValue(), forRuns, memory);
            streaks.put(e.getKey(), s);
            allowed.put(e.getKey(), s[1] >= forRuns ? Severity.FAIL : s[0] >= forRuns ? Severity.WARN : Severity.PASS);
        }
        forgetOthers(byEntity.keySet(), memory);

        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            Severity limit = allowed.get(key(f));
            if (f.severity() == Severity.UNKNOWN || !policy.order().isWorse(f.severity(), limit)) {
                out.add(f);
                continue;
            }
            long[] s = streaks.get(key(f));
            long met = f.severity() == Severity.FAIL ? s[1] : s[0];
            String message = f.severity().label() + " condition met " + met + " of " + forRuns + " consecutive runs: " + f.message();
            out.add(new Finding(f.check(), f.entity(), limit, message, limit == Severity.PASS ? Remedy.NONE : f.remedy(), null,
                    f.observed()));
        }
        return out;
    }

    /** Returns {warn streak, fail streak} after this run and stores them. */
    private static long[] update(SeverityPolicy policy, String entity, List<Finding> findings, int forRuns, ProbeState memory) {
        Severity worst = null;
        boolean unknown = false;
        for (Finding f : findings) {
            if (f.severity() == Severity.UNKNOWN) {
                unknown = true;
            } else {
                worst = worst == null ? f.severity() : policy.order().worst(worst, f.severity());
            }
        }
        long warn = 0;
        long fail = 0;
        if (memory.lostBecause() != null) {
            warn = forRuns - 1;
            fail = forRuns - 1;
        } else if (memory.get(entity) instanceof Map<?, ?> m) {
            warn = m.get(WARN) instanceof Number n ? n.longValue() : 0;
            fail = m.get(FAIL) instanceof Number n ? n.longValue() : 0;
        }
        long oldWarn = warn;
        long oldFail = fail;
        if (worst == Severity.FAIL) {
            warn = Math.min(warn + 1, forRuns);
            fail = Math.min(fail + 1, forRuns);
        } else if (worst == Severity.WARN) {
            warn = Math.min(warn + 1, forRuns);
            fail = 0;
        } else if (!unknown) {
            warn = 0;
            fail = 0;
        }
        if (warn == 0 && fail == 0) {
            memory.remove(entity);
        } else if (warn != oldWarn || fail != oldFail || memory.get(entity) == null) {
            // Only on change: a steady streak builds nothing (the section would see an equal value and stay clean anyway).
            Map<String, Object> v = new LinkedHashMap<>();
            v.put(WARN, warn);
            v.put(FAIL, fail);
            memory.put(entity, v);
        }
        return new long[] {warn, fail};
    }

    private static void forgetOthers(Set<String> present, ProbeState memory) {
        Set<String> stale = new HashSet<>(memory.snapshot().keySet());
        stale.removeAll(present);
        stale.forEach(memory::remove);
    }

    private static String key(Finding f) {
        return f.entity().label();
    }
}
