package dev.nhc.checks.gpu;

import dev.nhc.probe.ProbeState;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A GPU counter's previous reading, kept in the check's state between runs, so that a one-shot
 * run can tell "rising" from "high since boot". Keyed by PCI bus id (stable across driver
 * reloads, unlike indexes). A counter that went backwards was reset (GPU reset, reboot): no
 * change is reported for that run.
 */
public final class CounterHistory {
    private final ProbeState state;
    private final Instant now;

    public CounterHistory(ProbeState state, Instant now) {
        this.state = state;
        this.now = now;
    }

    /** What changed since the last run: the increase and the seconds it took. */
    public record Change(long increase, double seconds) {
        public double perSecond() {
            return seconds <= 0 ? 0 : increase / seconds;
        }

        public double perMinute() {
            return perSecond() * 60;
        }

        public double perHour() {
            return perSecond() * 3600;
        }
    }

    /** Records {@code value} and returns the change since the previous record, or null on the first run, after a reset, or if no time passed. */
    public Change record(String gpuKey, String counter, Long value) {
        if (value == null || gpuKey == null) {
            return null;
        }
        String key = gpuKey + "/" + counter;
        Object previous = state.get(key);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("value", value);
        entry.put("at", now.toEpochMilli());
        state.put(key, entry);
        if (!(previous instanceof Map<?, ?> p) || !(p.get("value") instanceof Number v) || !(p.get("at") instanceof Number at)) {
            return null;
        }
        long increase = value - v.longValue();
        double seconds = Duration.between(Instant.ofEpochMilli(at.longValue()), now).toMillis() / 1000.0;
        if (increase < 0 || seconds <= 0) {
            return null;
        }
        return new Change(increase, seconds);
    }
}
