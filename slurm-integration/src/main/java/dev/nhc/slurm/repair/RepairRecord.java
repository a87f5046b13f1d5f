package dev.nhc.slurm.repair;

import dev.nhc.engine.state.StateSection;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The repair ladder's rungs in nhc's Slurm record ({@code state_dir/slurm.json}, beside the
 * ledger's own keys): the rung the node is on, the faults and boot it is for, and every reboot nhc
 * asked for within the window (what "recurred after N reboots" counts). Every value is checked
 * when read ({@link #problems}): a record that holds values nhc never writes is not used at all,
 * and the ladder then asks for no reboot until the window has passed ({@link #lost}), since it
 * cannot count the reboots before.
 */
public final class RepairRecord {
    /** Where the node is on the ladder. */
    public enum Rung {
        /** nhc asked Slurm to reboot the node when its jobs end; the boot id has not changed yet. */
        REBOOTING,
        /** The node came back with a new boot id; the first run on it re-checks and resumes only a healthy node. */
        REBOOTED,
        /** The fault came back after the allowed reboots: nhc set FAIL, "replace the part". */
        FAILED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Rung parse(Object text) {
            for (Rung r : values()) {
                if (r.label().equals(text)) {
                    return r;
                }
            }
            return null;
        }
    }

    /** One reboot nhc asked for: when, and for which faults. */
    public record Reboot(Instant at, Set<String> faults) {
        public Reboot {
            faults = Set.copyOf(faults);
        }
    }

    static final String RUNG = "repair_rung";
    static final String FAULTS = "repair_faults";
    static final String BOOT = "repair_boot_id";
    static final String SINCE = "repair_since";
    static final String REBOOTS = "repair_reboots";
    static final String CANCELLED_BOOT = "repair_cancelled_boot";
    static final String LOST_SINCE = "repair_lost_since";
    /** Room for every reboot of a window many times over; older ones are dropped first. */
    static final int MAX_REBOOTS = 20;
    private static final int MAX_TEXT = 1000;

    private final StateSection s;

    public RepairRecord(StateSection s) {
        this.s = s;
    }

    /** What is wrong with the ladder's keys in a record read back (values nhc never writes), each named; empty when nothing. */
    public static List<String> problems(StateSection s) {
        List<String> bad = new ArrayList<>();
        Object rung = s.get(RUNG);
        if (rung != null && Rung.parse(rung) == null) {
            bad.add(RUNG + " '" + rung + "' is not rebooting, rebooted or failed");
        }
        if (s.get(FAULTS) != null && texts(s.get(FAULTS)) == null) {
            bad.add(FAULTS + " is not a list of faults");
        }
        for (String key : List.of(BOOT, CANCELLED_BOOT)) {
            if (s.get(key) != null && !BootId.valid(s.get(key))) {
                bad.add(key + " '" + s.get(key) + "' is not a boot id");
            }
        }
        for (String key : List.of(SINCE, LOST_SINCE)) {
            if (s.get(key) != null && instant(s.get(key)) == null) {
                bad.add(key + " '" + s.get(key) + "' is not a time");
            }
        }
        if (s.get(REBOOTS) != null && reboots(s.get(REBOOTS)) == null) {
            bad.add(REBOOTS + " is not a list of reboots, each with a time and its faults");
        }
        if (rung != null && (s.get(SINCE) == null || s.get(FAULTS) == null)) {
            bad.add(RUNG + " comes only with " + SINCE + " and " + FAULTS);
        }
        if (Rung.REBOOTING.label().equals(rung) && s.get(BOOT) == null) {
            bad.add("a rebooting rung comes only with the boot id it waits to see change");
        }
        return bad;
    }

    public Rung rung() {
        return Rung.parse(s.get(RUNG));
    }

    public Set<String> faults() {
        List<String> f = texts(s.get(FAULTS));
        return f == null ? Set.of() : new LinkedHashSet<>(f);
    }

    /** The boot the node was on when nhc asked for the reboot. */
    public String bootId() {
        return s.getString(BOOT);
    }

    public Instant since() {
        return instant(s.get(SINCE));
    }

    public List<Reboot> reboots() {
        List<Reboot> r = reboots(s.get(REBOOTS));
        return r == null ? List.of() : r;
    }

    /** The reboots within the window that were for any of these faults: how often a reboot did not hold. */
    public int rebootsFor(Set<String> faults, Instant now, Duration window) {
        int n = 0;
        for (Reboot r : reboots()) {
            if (!r.at().isBefore(now.minus(window)) && r.faults().stream().anyMatch(faults::contains)) {
                n++;
            }
        }
        return n;
    }

    /** The boot in which an admin cancelled a reboot nhc asked for: no other reboot of nhc's in it. */
    public String cancelledBoot() {
        return s.getString(CANCELLED_BOOT);
    }

    /** When the record was found damaged or lost, or null. */
    public Instant lostSince() {
        return instant(s.get(LOST_SINCE));
    }

    /** nhc asked Slurm for a reboot for these faults, on this boot. */
    public void rebootRequested(Set<String> faults, String bootId, Instant now) {
        synchronized (s) {
            List<Map<String, Object>> kept = new ArrayList<>();
            for (Reboot r : reboots()) {
                kept.add(Map.of("at", r.at().toString(), "faults", List.copyOf(r.faults())));
            }
            kept.add(Map.of("at", now.toString(), "faults", List.copyOf(faults)));
            while (kept.size() > MAX_REBOOTS) {
                kept.remove(0);
            }
            s.put(REBOOTS, kept);
            rung(Rung.REBOOTING, faults, now);
            s.put(BOOT, bootId);
        }
    }

    /** The node came back on a new boot. */
    public void rebootSeen(Instant now) {
        synchronized (s) {
            rung(Rung.REBOOTED, faults(), now);
            s.remove(BOOT);
        }
    }

    /** nhc set FAIL: the faults came back after the allowed reboots. */
    public void failed(Set<String> faults, Instant now) {
        synchronized (s) {
            rung(Rung.FAILED, faults, now);
            s.remove(BOOT);
        }
    }

    /** The node left the ladder's hands (resumed, or taken over); the reboots it had still count. */
    public void leave() {
        synchronized (s) {
            s.remove(RUNG);
            s.remove(FAULTS);
            s.remove(SINCE);
            s.remove(BOOT);
        }
    }

    /** After a FAIL for recurrence is over (the part was seen to): its reboots no longer count. */
    public void forgetReboots() {
        s.remove(REBOOTS);
    }

    public void cancelled(String bootId) {
        if (bootId != null) {
            s.put(CANCELLED_BOOT, bootId);
        }
    }

    /** The record was found damaged or lost: the reboots before cannot be counted. */
    public void lost(Instant now) {
        s.put(LOST_SINCE, now.toString());
    }

    /** Drops what the window no longer needs: reboots and the lost mark older than it. */
    public void expire(Instant now, Duration window) {
        synchronized (s) {
            Instant lost = lostSince();
            if (lost != null && lost.isBefore(now.minus(window))) {
                s.remove(LOST_SINCE);
            }
            List<Reboot> all = reboots();
            List<Map<String, Object>> kept = new ArrayList<>();
            for (Reboot r : all) {
                if (!r.at().isBefore(now.minus(window))) {
                    kept.add(Map.of("at", r.at().toString(), "faults", List.copyOf(r.faults())));
                }
            }
            if (kept.isEmpty()) {
                s.remove(REBOOTS);
            } else if (kept.size() != all.size()) {
                s.put(REBOOTS, kept);
            }
        }
    }

    private void rung(Rung rung, Set<String> faults, Instant now) {
        s.put(RUNG, rung.label());
        s.put(FAULTS, List.copyOf(faults));
        s.put(SINCE, now.toString());
    }

    private static List<String> texts(Object o) {
        if (!(o instanceof List<?> list) || list.size() > 100) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object e : list) {
            if (!(e instanceof String t) || t.isEmpty() || t.length() > MAX_TEXT) {
                return null;
            }
            out.add(t);
        }
        return out;
    }

    private static List<Reboot> reboots(Object o) {
        if (!(o instanceof List<?> list) || list.size() > MAX_REBOOTS) {
            return null;
        }
        List<Reboot> out = new ArrayList<>();
        for (Object e : list) {
            if (!(e instanceof Map<?, ?> m) || !new LinkedHashSet<>(m.keySet()).equals(Set.of("at", "faults"))) {
                return null;
            }
            Instant at = instant(m.get("at"));
            List<String> faults = texts(m.get("faults"));
            if (at == null || faults == null || faults.isEmpty()) {
                return null;
            }
            out.add(new Reboot(at, new LinkedHashSet<>(faults)));
        }
        return out;
    }

    private static Instant instant(Object o) {
        if (!(o instanceof String text)) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** The ladder's keys for a report ({@code nhc status --json}): rung, faults, since, reboots in the window. */
    public Map<String, Object> describe(Instant now, Duration window) {
        Map<String, Object> m = new LinkedHashMap<>();
        Rung r = rung();
        m.put("rung", r == null ? null : r.label());
        m.put("faults", List.copyOf(faults()));
        m.put("since", since() == null ? null : since().toString());
        List<Map<String, Object>> within = new ArrayList<>();
        for (Reboot b : reboots()) {
            if (!b.at().isBefore(now.minus(window))) {
                within.add(Map.of("at", b.at().toString(), "faults", List.copyOf(b.faults())));
            }
        }
        m.put("reboots_in_window", within);
        return m;
    }
}
