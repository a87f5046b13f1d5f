package dev.nhc.slurm.history;

import dev.nhc.engine.state.StateSection;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What happened to the node, as nhc saw and did it: each change of verdict and each action (drain,
 * fail, resume, reboot requested, reboot seen, someone else taking over) with its reason and time.
 * Kept in the state directory's {@code history} section ({@code state_dir/history.json}), so it is
 * written as every state file is (atomically, root's directory, no symbolic links); bounded to the
 * last {@link #MAX_ENTRIES} entries, the oldest dropped first; every entry checked when read back
 * ({@link #read}): a damaged one is skipped and counted, never shown as if nhc had written it.
 */
public final class History {
    public static final String SECTION = "history";
    public static final int MAX_ENTRIES = 500;
    static final int MAX_DETAIL = 1000;

    /** What an entry records. */
    public enum Event {
        VERDICT, DRAIN, FAIL, UPDATE_REASON, RESUME, REBOOT_REQUESTED, REBOOT_SEEN, RETURNED_TO_SERVICE, TOOK_OVER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The entry for a change the Slurm action made ({@code drain}, {@code fail}, {@code update_reason}, {@code reboot}). */
        public static Event of(String change) {
            return "reboot".equals(change) ? REBOOT_REQUESTED : valueOf(change.toUpperCase(Locale.ROOT));
        }

        static Event parse(Object text) {
            for (Event e : values()) {
                if (e.label().equals(text)) {
                    return e;
                }
            }
            return null;
        }
    }

    /** One entry; {@code severity} only for a verdict. */
    public record Entry(Instant at, Event event, Severity severity, String detail) {
    }

    /** The entries that could be read, oldest first, and how many could not. */
    public record Read(List<Entry> entries, int damaged, String lost) {
    }

    private static final String ENTRIES = "entries";

    private final Supplier<StateSection> section;
    private StateSection s;

    /** {@code section}: the history's state section, read only when an entry is added (a run that changes nothing never reads it). */
    public History(Supplier<StateSection> section) {
        this.section = section;
    }

    public History(StateSection s) {
        this(() -> s);
    }

    /** Records a changed verdict ({@code reason}: nhc's Slurm reason for a failing one; else the checks that did not pass). */
    public void verdict(Verdict verdict, String reason, Instant at) {
        StateSection s = section();
        synchronized (s) {
            append(s, at, Event.VERDICT, verdict.severity(), reason != null ? reason : summary(verdict));
        }
    }

    /** A passing, warning or undecided verdict: its checks that did not pass. */
    private static String summary(Verdict verdict) {
        List<String> parts = new ArrayList<>();
        for (Finding f : verdict.findings()) {
            parts.add(f.severity().label() + " " + f.check() + ": " + f.message());
        }
        return parts.isEmpty() ? "every check passed" : String.join("; ", parts);
    }

    public void add(Event event, String detail, Instant at) {
        StateSection s = section();
        synchronized (s) {
            append(s, at, event, null, detail);
        }
    }

    private synchronized StateSection section() {
        if (s == null) {
            s = section.get();
        }
        return s;
    }

    private static void append(StateSection s, Instant at, Event event, Severity severity, String detail) {
        List<Object> entries = new ArrayList<>();
        if (s.get(ENTRIES) instanceof List<?> old) {
            entries.addAll(old);
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("at", at.toString());
        e.put("event", event.label());
        if (severity != null) {
            e.put("severity", severity.label());
        }
        e.put("detail", bound(detail == null ? "" : detail));
        entries.add(e);
        while (entries.size() > MAX_ENTRIES) {
            entries.remove(0);
        }
        s.put(ENTRIES, entries);
    }

    private static String bound(String text) {
        return text.length() <= MAX_DETAIL ? text : text.substring(0, MAX_DETAIL - 3) + "...";
    }

    /** The entries as written back, each checked: a damaged entry is skipped and counted. */
    public static Read read(StateSection s) {
        List<Entry> out = new ArrayList<>();
        int damaged = 0;
        Object all = s.get(ENTRIES);
        if (all != null && !(all instanceof List<?>)) {
            return new Read(List.of(), 1, s.lostBecause());
        }
        if (all instanceof List<?> list) {
            for (Object o : list) {
                Entry e = entry(o);
                if (e == null) {
                    damaged++;
                } else {
                    out.add(e);
                }
            }
        }
        return new Read(out, damaged, s.lostBecause());
    }

    private static Entry entry(Object o) {
        if (!(o instanceof Map<?, ?> m) || !(m.get("detail") instanceof String detail) || detail.length() > MAX_DETAIL
                || !Set.of("at", "event", "severity", "detail").containsAll(m.keySet())) {
            return null;
        }
        Event event = Event.parse(m.get("event"));
        Instant at;
        try {
            at = m.get("at") instanceof String t ? Instant.parse(t) : null;
        } catch (DateTimeParseException e) {
            at = null;
        }
        Severity severity = null;
        if (m.get("severity") != null) {
            try {
                severity = Severity.parse(String.valueOf(m.get("severity")));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        if (event == null || at == null || (event == Event.VERDICT) != (severity != null)) {
            return null;
        }
        return new Entry(at, event, severity, detail);
    }
}
