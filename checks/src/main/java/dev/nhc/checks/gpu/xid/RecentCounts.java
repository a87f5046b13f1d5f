package dev.nhc.checks.gpu.xid;

import dev.nhc.probe.ProbeState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How many events of one kind, GPU and XID each source (NVML, the kernel log) reported lately,
 * kept across runs. NVML reports an XID the moment the driver raises it; the driver's log line
 * may be read a run later (or the other way round). Both are the same XID, so what counts is the
 * larger of the two totals, not their sum: a run counts only what it adds to that larger total.
 * An entry is forgotten {@link #WINDOW} after its last event: by then both sources have told it.
 */
final class RecentCounts {
    static final String KEY = "xid.recent";
    static final Duration WINDOW = Duration.ofMinutes(10);
    private static final int MAX_ENTRIES = 256;

    private record Totals(long nvml, long log, long atMillis) {
    }

    private final Map<String, Totals> byKey = new LinkedHashMap<>();

    private RecentCounts() {
    }

    /** What earlier runs kept within the window; a damaged entry is dropped (at worst an XID counts twice). */
    static RecentCounts load(ProbeState state, Instant now) {
        RecentCounts r = new RecentCounts();
        if (!(state.get(KEY) instanceof List<?> list)) {
            return r;
        }
        long oldest = now.minus(WINDOW).toEpochMilli();
        for (Object o : list) {
            if (o instanceof Map<?, ?> m && m.get("key") instanceof String k && k.length() <= 200
                    && m.get("nvml") instanceof Long n && n >= 0 && m.get("log") instanceof Long l && l >= 0
                    && m.get("at") instanceof Long at && at >= oldest) {
                r.byKey.put(k, new Totals(n, l, at));
            }
        }
        return r;
    }

    /**
     * Adds this run's counts of {@code key} from both sources; returns how many new events they
     * make: how much the larger total grew (0 when the other source already told this XID).
     */
    long add(String key, long nvml, long log, Instant now) {
        Totals t = byKey.getOrDefault(key, new Totals(0, 0, 0));
        Totals next = new Totals(t.nvml() + nvml, t.log() + log, now.toEpochMilli());
        byKey.put(key, next);
        return Math.max(next.nvml(), next.log()) - Math.max(t.nvml(), t.log());
    }

    void save(ProbeState state) {
        List<Object> out = new ArrayList<>();
        byKey.forEach((k, t) -> {
            if (out.size() < MAX_ENTRIES) {
                out.add(Map.of("key", k, "nvml", t.nvml(), "log", t.log(), "at", t.atMillis()));
            }
        });
        state.put(KEY, out.isEmpty() ? null : out);
    }
}
