package dev.nhc.checks.gpu.fabric;

import dev.nhc.model.Entity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fabric manager log errors of one device and one kind (fatal or not): which errors, how many
 * lines, and when the first was logged. The fatal groups are what {@code gpu.fabric} latches in
 * its state until the node reboots or an admin runs {@code nhc clear}; this class also writes
 * and reads that form, and drops whatever it did not write.
 */
final class FabricErrorGroup {
    /** Distinct errors named in messages; more are summed up as "…". */
    static final int MAX_NAMED = 4;
    static final int MAX_TEXT = 200;

    final FabricError.Device kind;
    final String device;
    private Long physicalId;
    private final Set<String> named = new LinkedHashSet<>();
    private boolean more;
    private long lines;
    private String first;

    private FabricErrorGroup(FabricError.Device kind, String device) {
        this.kind = kind;
        this.device = device;
    }

    static FabricErrorGroup of(FabricError e) {
        FabricErrorGroup g = new FabricErrorGroup(e.kind(), clip(e.device()));
        g.add(e);
        return g;
    }

    /** One key per device and kind of device: an NVSwitch and a GPU never share one. */
    static String key(FabricError.Device kind, String device) {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + clip(device);
    }

    String key() {
        return key(kind, device);
    }

    void add(FabricError e) {
        if (lines == 0) {
            first = e.stamp() == null ? null : clip(e.stamp());
        }
        lines++;
        if (physicalId == null) {
            physicalId = e.physicalId();
        }
        name(clip(e.what()));
    }

    /**
     * Every text is kept at most as long as {@link #fromState} accepts (a log line may carry an
     * SXid of any length): a latch must survive being saved and read back, never turn "damaged".
     */
    static String clip(String s) {
        if (s.length() <= MAX_TEXT) {
            return s;
        }
        int end = MAX_TEXT - 1;
        if (Character.isLowSurrogate(s.charAt(end))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }

    private void name(String what) {
        if (named.contains(what)) {
            return;
        }
        if (named.size() < MAX_NAMED) {
            named.add(what);
        } else {
            more = true;
        }
    }

    /** Adds a later group of the same device: the earlier first time stays. */
    void merge(FabricErrorGroup later) {
        lines += later.lines;
        if (physicalId == null) {
            physicalId = later.physicalId;
        }
        later.named.forEach(this::name);
        more |= later.more;
        if (first == null) {
            first = later.first;
        }
    }

    long lines() {
        return lines;
    }

    /** "SXid 20034 on port 33 (2 lines, first at Jul 23 2024 07:53:55)". */
    String detail() {
        StringBuilder s = new StringBuilder(String.join(", ", named));
        if (more) {
            s.append(", …");
        }
        s.append(" (").append(lines).append(lines == 1 ? " line" : " lines");
        if (first != null) {
            s.append(lines == 1 ? ", at " : ", first at ").append(first);
        }
        return s.append(')').toString();
    }

    /** The device as reports name it. */
    Entity entity() {
        if (kind == FabricError.Device.GPU) {
            return new Entity(Entity.Kind.GPU, device, "GPU with GUID " + device, null);
        }
        boolean pci = device.indexOf(':') >= 0;
        String label = "NVSwitch " + device + (physicalId != null && pci ? " (physical id " + physicalId + ")" : "");
        return new Entity(Entity.Kind.NVSWITCH, device, label, pci ? device : null);
    }

    // ---- the latched form in the check's state

    Map<String, Object> toState() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT));
        m.put("device", device);
        if (physicalId != null) {
            m.put("physical_id", physicalId);
        }
        m.put("errors", new ArrayList<>(named));
        m.put("more", more);
        m.put("lines", lines);
        if (first != null) {
            m.put("first", first);
        }
        return m;
    }

    /** A latched group read back, or null when the entry is not one this class writes. */
    static FabricErrorGroup fromState(Object o) {
        if (!(o instanceof Map<?, ?> m)) {
            return null;
        }
        FabricError.Device kind = "nvswitch".equals(m.get("kind")) ? FabricError.Device.NVSWITCH
                : "gpu".equals(m.get("kind")) ? FabricError.Device.GPU : null;
        Object device = m.get("device");
        Object lines = m.get("lines");
        Object errors = m.get("errors");
        Object physical = m.get("physical_id");
        Object first = m.get("first");
        Object more = m.get("more");
        if (kind == null || !(device instanceof String d) || d.isEmpty() || d.length() > MAX_TEXT
                || !(lines instanceof Long n) || n < 1 || !(errors instanceof List<?> list) || list.isEmpty() || list.size() > MAX_NAMED
                || (physical != null && !(physical instanceof Long p && p >= 0))
                || (first != null && !(first instanceof String f && f.length() <= MAX_TEXT))
                || (more != null && !(more instanceof Boolean))) {
            return null;
        }
        FabricErrorGroup g = new FabricErrorGroup(kind, d);
        for (Object e : list) {
            if (!(e instanceof String s) || s.isEmpty() || s.length() > MAX_TEXT) {
                return null;
            }
            g.named.add(s);
        }
        g.lines = n;
        g.physicalId = (Long) physical;
        g.first = (String) first;
        g.more = Boolean.TRUE.equals(more);
        return g;
    }

    /**
     * The latched groups in {@code state} under {@code key}, into {@code into}; returns why some
     * could not be read back (entries a hand edit or a damaged disk broke are dropped), or null.
     */
    static String load(Object saved, String key, Map<String, FabricErrorGroup> into) {
        if (saved == null) {
            return null;
        }
        if (!(saved instanceof List<?> list)) {
            return "state value " + key + " is not a list";
        }
        int bad = 0;
        for (Object o : list) {
            FabricErrorGroup g = fromState(o);
            if (g == null) {
                bad++;
            } else {
                into.merge(g.key(), g, (a, b) -> {
                    a.merge(b);
                    return a;
                });
            }
        }
        return bad == 0 ? null : bad + (bad == 1 ? " saved entry is" : " saved entries are") + " damaged";
    }

    /** The groups as kept in state, or null for none. */
    static List<Object> toState(Map<String, FabricErrorGroup> groups) {
        List<Object> list = new ArrayList<>();
        groups.values().forEach(g -> list.add(g.toState()));
        return list.isEmpty() ? null : list;
    }
}
