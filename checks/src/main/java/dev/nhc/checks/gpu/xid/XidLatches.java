package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.BootLatches;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The fatal XIDs {@code gpu.xid} keeps in its state until the node reboots (a new boot id) or
 * {@code nhc clear}, one entry per kind, GPU and XID, in the one latch store ({@link BootLatches},
 * keys {@code xid.*}). Every entry read back is checked: the state may come from an older nhc, a
 * hand edit or a damaged disk. An entry that does not hold up is dropped, and the loss itself is
 * kept and observed until reboot or clear, because a fatal XID that silently fell out of the state
 * would resume a drained node.
 */
final class XidLatches {
    static final String LATCHED = "xid.latched";

    private static final int TEXT_MAX = 160;
    private static final int WHEN_MAX = 64;
    private static final Pattern PCI = Pattern.compile("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}");

    /** One latched XID: how often, since when, and the last line's text. */
    record Latch(XidEvent event, long count, String first) {
    }

    private final Map<String, Latch> latches = new LinkedHashMap<>();
    private final BootLatches store;

    private XidLatches(BootLatches store) {
        this.store = store;
    }

    /** The latches of this boot: none after a reboot; what could not be read back is noted as lost. */
    static XidLatches load(ProbeState state, String bootId) {
        XidLatches l = new XidLatches(BootLatches.load(state, "xid", bootId));
        Object saved = l.store.saved();
        if (saved == null) {
            return l;
        }
        if (!(saved instanceof List<?> list)) {
            l.store.lost("state value " + LATCHED + " is not a list");
            return l;
        }
        int bad = 0;
        for (Object o : list) {
            Latch latch = o instanceof Map<?, ?> m ? read(m) : null;
            if (latch == null) {
                bad++;
            } else {
                l.latches.merge(key(latch.event()), latch, XidLatches::merge);
            }
        }
        if (bad > 0) {
            l.store.lost(bad + (bad == 1 ? " saved entry is" : " saved entries are") + " damaged");
        }
        return l;
    }

    /** The loss, on the observation of the reading itself. */
    Observation.Builder observeLoss(Observation.Builder o) {
        return store.observe(o);
    }

    Collection<Latch> all() {
        return latches.values();
    }

    void latch(XidEvent e, long count, String first) {
        latches.merge(key(e), new Latch(e, count, first), XidLatches::merge);
    }

    void remove(XidEvent e) {
        latches.remove(key(e));
    }

    /** Keeps only the latches {@code stillFatal} accepts (the config may no longer call an XID fatal). */
    void retain(java.util.function.Predicate<XidEvent> stillFatal) {
        latches.values().removeIf(l -> !stillFatal.test(l.event()));
    }

    void save(ProbeState state, String bootId) {
        List<Object> out = new ArrayList<>();
        for (Latch l : latches.values()) {
            out.add(write(l));
        }
        store.save(state, out.isEmpty() ? null : out, bootId);
    }

    /** Kind, GPU and XID: the same XID on the same GPU is one latch however often it came. */
    static String key(XidEvent e) {
        return e.kind().name().toLowerCase(Locale.ROOT) + ":" + (e.pci() != null ? e.pci() : "gpu" + e.gpu()) + ":" + e.code();
    }

    private static Latch merge(Latch old, Latch now) {
        XidEvent e = now.event();
        if (Boolean.TRUE.equals(old.event().fatal()) && !Boolean.TRUE.equals(e.fatal())) {
            e = new XidEvent(e.kind(), e.pci(), e.gpu(), e.code(), Boolean.TRUE, e.recoveryAction(), e.text(), e.when());
        }
        if (e.gpu() == null && old.event().gpu() != null) {
            e = new XidEvent(e.kind(), e.pci(), old.event().gpu(), e.code(), e.fatal(), e.recoveryAction(), e.text(), e.when());
        }
        return new Latch(e, old.count() + now.count(), old.first());
    }

    private static Map<String, Object> write(Latch l) {
        XidEvent e = l.event();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", e.kind().name().toLowerCase(Locale.ROOT));
        if (e.pci() != null) {
            m.put("pci", e.pci());
        }
        if (e.gpu() != null) {
            m.put("gpu", (long) e.gpu());
        }
        m.put("code", (long) e.code());
        if (e.fatal() != null) {
            m.put("fatal", e.fatal());
        }
        if (e.recoveryAction() != null) {
            m.put("action", clip(e.recoveryAction(), WHEN_MAX));
        }
        m.put("count", l.count());
        m.put("first", clip(l.first() == null ? "" : l.first(), WHEN_MAX));
        m.put("last", clip(e.when() == null ? "" : e.when(), WHEN_MAX));
        m.put("text", clip(e.text() == null ? "" : e.text(), TEXT_MAX));
        return m;
    }

    /** An entry as saved, or null when any part of it is not what {@link #write} writes. */
    private static Latch read(Map<?, ?> m) {
        Object kind = m.get("kind");
        XidEvent.Kind k;
        if (kind == null || "xid".equals(kind)) {
            k = XidEvent.Kind.XID;
        } else if ("sxid".equals(kind)) {
            k = XidEvent.Kind.SXID;
        } else {
            return null;
        }
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
        if (pci == null && gpu == null) {
            return null;
        }
        if (!(m.get("code") instanceof Number code) || code.longValue() < 0 || code.longValue() > Integer.MAX_VALUE) {
            return null;
        }
        if (!(m.get("count") instanceof Number count) || count.longValue() < 1) {
            return null;
        }
        Object fatal = m.get("fatal");
        if (fatal != null && !(fatal instanceof Boolean)) {
            return null;
        }
        for (String textKey : List.of("action", "first", "last", "text")) {
            Object v = m.get(textKey);
            if (v != null && !(v instanceof String t && t.length() <= TEXT_MAX + 1)) {
                return null;
            }
        }
        XidEvent e = new XidEvent(k, pci, gpu, code.intValue(), (Boolean) fatal, (String) m.get("action"), orEmpty(m.get("text")),
                orEmpty(m.get("last")));
        return new Latch(e, count.longValue(), orEmpty(m.get("first")));
    }

    private static String orEmpty(Object o) {
        return o == null ? "" : (String) o;
    }

    static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
