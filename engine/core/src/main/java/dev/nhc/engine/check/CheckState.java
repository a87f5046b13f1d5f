package dev.nhc.engine.check;

import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Finding;
import dev.nhc.probe.Probe;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one check keeps in the state store, and the one place that knows where: its probe's own
 * section ({@code check.NAME}: cursors, latched faults), the severity policy's {@code for:} streaks
 * ({@code rules.NAME}), and, in the {@code schedule} section all checks share, when an
 * {@code every:} check last ran ({@code last_run.NAME}) and what it found ({@code last_findings.NAME},
 * in {@link SavedResults}' form).
 */
public final class CheckState {
    static final String RULES_PREFIX = "rules.";
    static final String SCHEDULE = "schedule";
    static final String LAST_RUN = "last_run.";
    static final String LAST_FINDINGS = "last_findings.";

    private final StateStore store;
    private final String check;

    public CheckState(StateStore store, String check) {
        this.store = store;
        this.check = check;
    }

    /** The probe's own section, which the probe's thread saves as soon as the probe returns. */
    String probeSection() {
        return StateStore.CHECK_PREFIX + check;
    }

    StateSection streaks() {
        return store.section(RULES_PREFIX + check);
    }

    private StateSection schedule() {
        return store.section(SCHEDULE);
    }

    /**
     * When the check last ran by its schedule; null when never, or when the time saved is later than
     * {@code now} (a clock stepped back, an edited file): either way it is due.
     */
    Instant lastRun(Instant now) {
        long last = schedule().getLong(LAST_RUN + check, Long.MIN_VALUE);
        return last == Long.MIN_VALUE || last > now.toEpochMilli() ? null : Instant.ofEpochMilli(last);
    }

    /** An {@code every:} check ran: when, and what it found, shown by the runs in between until it is due again. */
    void remember(Instant at, List<Finding> findings) {
        schedule().put(LAST_RUN + check, at.toEpochMilli());
        List<Map<String, Object>> saved = new ArrayList<>();
        for (Finding f : findings) {
            saved.add(SavedResults.finding(f));
        }
        schedule().put(LAST_FINDINGS + check, saved);
    }

    /** What the check found when it last ran; an entry that does not read back (hand-edited, another version) is left out. */
    List<Finding> lastFindings() {
        List<Finding> out = new ArrayList<>();
        if (schedule().get(LAST_FINDINGS + check) instanceof List<?> list) {
            for (Object o : list) {
                Finding f = SavedResults.finding(o, check);
                if (f != null) {
                    out.add(f.withCheck(check));
                }
            }
        }
        return out;
    }

    /**
     * The sections a run changes besides the probe's own: for an owner that saves each result as it
     * comes (the daemon), while other checks' probes may still be changing theirs.
     */
    public List<String> judgedSections() {
        return List.of(RULES_PREFIX + check, SCHEDULE);
    }

    /**
     * Forgets what the check remembers — its probe's latches and counters (the probe decides what,
     * {@link Probe#clear}), its {@code for:} streaks, its last scheduled result — and saves that. No
     * run of the check may be going: {@link CheckRun#clear} sees to that where one may be.
     */
    public void forget(Probe probe) throws IOException {
        probe.clear(store.section(probeSection()));
        streaks().clear();
        schedule().remove(LAST_RUN + check);
        schedule().remove(LAST_FINDINGS + check);
        store.flush(List.of(probeSection(), RULES_PREFIX + check, SCHEDULE));
    }
}
