package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.BootLatches;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The GPU resets {@code gpu.amd-events} keeps until the node reboots or {@code nhc clear}, one
 * entry per GPU, in the one latch store ({@link BootLatches}, keys {@code amd_resets.*}). Every
 * entry read back is checked; one that does not hold up is dropped and the loss observed, because a
 * reset that silently fell out of the state would resume a drained node.
 */
final class AmdResetLatches {
    private static final int TEXT_MAX = 160;
    private static final int WHEN_MAX = 64;
    private static final Pattern PCI = Pattern.compile("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");

    /** One GPU's resets: which GPU, how many, the first and last, the library's last message. */
    record Latch(String pci, Integer gpu, long count, String first, String last, String message) {
        String key() {
            return pci != null ? pci : "gpu" + gpu;
        }
    }

    private final Map<String, Latch> latches = new LinkedHashMap<>();
    private final BootLatches store;

    private AmdResetLatches(BootLatches store) {
        this.store = store;
    }

    static AmdResetLatches load(ProbeState state, String bootId) {
        AmdResetLatches l = new AmdResetLatches(BootLatches.load(state, "amd_resets", bootId));
        Object saved = l.store.saved();
        if (saved == null) {
            return l;
        }
        if (!(saved instanceof List<?> list)) {
            l.store.lost("state value amd_resets.latched is not a list");
            return l;
        }
        int bad = 0;
        for (Object o : list) {
            Latch latch = o instanceof Map<?, ?> m ? read(m) : null;
            if (latch == null) {
                bad++;
            } else {
                l.latches.put(latch.key(), latch);
            }
        }
        if (bad > 0) {
            l.store.lost(bad + (bad == 1 ? " saved entry is" : " saved entries are") + " damaged");
        }
        return l;
    }

    /** Whether some of this boot's resets could not be read back. */
    boolean lost() {
        return store.lost() != null;
    }

    Observation.Builder observeLoss(Observation.Builder o) {
        return store.observe(o);
    }

    Collection<Latch> all() {
        return latches.values();
    }

    /** One more reset of this GPU, at {@code when}. */
    void reset(String pci, Integer gpu, String when, String message) {
        Latch now = new Latch(pci, gpu, 1, when, when, message);
        latches.merge(now.key(), now, (old, n) -> new Latch(old.pci(), old.gpu() != null ? old.gpu() : n.gpu(),
                old.count() + 1, old.first(), n.last(), n.message()));
    }

    void save(ProbeState state, String bootId) {
        List<Object> out = new ArrayList<>();
        for (Latch l : latches.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (l.pci() != null) {
                m.put("pci", l.pci());
            }
            if (l.gpu() != null) {
                m.put("gpu", (long) l.gpu());
            }
            m.put("count", l.count());
            m.put("first", clip(l.first(), WHEN_MAX));
            m.put("last", clip(l.last(), WHEN_MAX));
            m.put("message", clip(l.message() == null ? "" : l.message(), TEXT_MAX));
            out.add(m);
        }
        store.save(state, out.isEmpty() ? null : out, bootId);
    }

    /** An entry as saved, or null when any part of it is not what {@link #save} writes. */
    private static Latch read(Map<?, ?> m) {
        String pci = m.get("pci") instanceof String s && PCI.matcher(s).matches() ? s : null;
        if (m.get("pci") != null && pci == null) {
            return null;
        }
        Integer gpu = null;
        if (m.get("gpu") != null) {
            if (!(m.get("gpu") instanceof Number n) || n.longValue() < 0 || n.longValue() > 4096) {
                return null;
            }
            gpu = n.intValue();
        }
        if ((pci == null && gpu == null) || !(m.get("count") instanceof Number c) || c.longValue() < 1
                || !(m.get("first") instanceof String first) || first.length() > WHEN_MAX
                || !(m.get("last") instanceof String last) || last.length() > WHEN_MAX
                || !(m.get("message") instanceof String message) || message.length() > TEXT_MAX) {
            return null;
        }
        return new Latch(pci, gpu, c.longValue(), first, last, message.isEmpty() ? null : message);
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
