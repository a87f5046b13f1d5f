package dev.nhc.checks.net;

import dev.nhc.probe.ProbeState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A port's counters between runs, kept in the check's state under the port's id ("mlx5_0/1"):
 * the previous values and when they were read, and the link-downed increases seen within the flap
 * window, each with when it was seen. A one-shot run learns from these what rose since the last
 * run and how many flaps fell within the window.
 *
 * <p>What is read back is checked: a counter that is not a non-negative whole number starts afresh
 * (no increase this run), as does a counter that went down (the counters were cleared, or the node
 * rebooted); a time in the future is ignored; a flap entry that is malformed or older than the
 * window is dropped. A flap is placed at the run that first saw it, so the window's resolution is
 * the run interval.
 */
final class PortHistory {
    static final String AT = "at";
    static final String FLAPS = "flaps";
    static final String LINK_DOWNED = "link_downed";

    private final ProbeState state;
    private final long now;
    private final long windowMs;

    /**
     * What changed since the previous run: increases and per-minute rates by counter name (absent on
     * the first run, after a reset, or when the previous value was unusable), and the link-downed
     * increases within the window (this run's included).
     */
    record Change(Map<String, Long> increases, Map<String, Double> perMinute, long flapsInWindow) {
    }

    PortHistory(ProbeState state, Instant now, Duration window) {
        this.state = state;
        this.now = now.toEpochMilli();
        this.windowMs = window.toMillis();
    }

    Change record(String portId, Map<String, Long> counters) {
        Map<?, ?> previous = state.get(portId) instanceof Map<?, ?> m ? m : Map.of();
        Long at = wholeNumber(previous.get(AT));
        double minutes = at == null || at > now ? 0 : (now - at) / 60_000.0;
        Map<String, Long> increases = new LinkedHashMap<>();
        Map<String, Double> perMinute = new LinkedHashMap<>();
        Map<String, Object> next = new LinkedHashMap<>();
        next.put(AT, now);
        counters.forEach((name, value) -> {
            next.put(name, value);
            Long before = wholeNumber(previous.get(name));
            if (before == null || value < before) {
                return;
            }
            increases.put(name, value - before);
            if (minutes > 0) {
                perMinute.put(name, (value - before) / minutes);
            }
        });
        List<List<Long>> flaps = flapsWithinWindow(previous.get(FLAPS));
        Long downs = increases.get(LINK_DOWNED);
        if (downs != null && downs > 0) {
            flaps.add(List.of(now, downs));
        }
        long inWindow = 0;
        for (List<Long> f : flaps) {
            inWindow += f.get(1);
        }
        if (!flaps.isEmpty()) {
            next.put(FLAPS, flaps);
        }
        state.put(portId, next);
        return new Change(increases, perMinute, inWindow);
    }

    private List<List<Long>> flapsWithinWindow(Object stored) {
        List<List<Long>> out = new ArrayList<>();
        if (!(stored instanceof List<?> list)) {
            return out;
        }
        for (Object item : list) {
            if (item instanceof List<?> pair && pair.size() == 2) {
                Long when = wholeNumber(pair.get(0));
                Long count = wholeNumber(pair.get(1));
                if (when != null && count != null && count > 0 && when <= now && now - when < windowMs) {
                    out.add(List.of(when, count));
                }
            }
        }
        return out;
    }

    /** A non-negative whole number as stored (JSON may give Integer, Long or Double), else null. */
    static Long wholeNumber(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short) {
            long l = ((Number) v).longValue();
            return l >= 0 ? l : null;
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            return d >= 0 && d == Math.rint(d) && d < 9.0e15 ? (long) d : null;
        }
        return null;
    }
}
