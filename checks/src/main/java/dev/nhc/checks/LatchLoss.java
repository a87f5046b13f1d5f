package dev.nhc.checks;

import dev.nhc.probe.ProbeState;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Why latched faults of this boot may have been lost, for checks that latch (kernel.log, gpu.xid,
 * the fabric manager log). A fault that silently fell out of the state would resume a drained
 * node, so the loss itself is kept in the state until reboot or {@code nhc clear} and observed.
 *
 * <p>Only the probe's own reasons are stored (a damaged entry, an invalid boot id). That the state
 * file could not be read at all is not: {@link ProbeState#lostBecause()} says so again on every run
 * until clear, and storing it too would repeat it once more each run. Reasons are kept once each,
 * so the stored sentence stays the same from run to run instead of growing.
 */
public final class LatchLoss {
    /** The longest stored sentence; a longer one is cut with a marker. */
    static final int MAX = 300;
    private static final String SEP = "; ";
    private static final String STATE_UNREADABLE = "state unreadable: ";
    private static final String CUT = "…";

    private final String stateUnreadable;
    private final Set<String> own = new LinkedHashSet<>();

    private LatchLoss(String stateUnreadable) {
        this.stateUnreadable = stateUnreadable;
    }

    /** Nothing lost: after a reboot the devices were reset, and so is what was lost with them. */
    public static LatchLoss none() {
        return new LatchLoss(null);
    }

    /** The loss of this boot: the state's own (not stored) and the reasons earlier runs stored under {@code key}. */
    public static LatchLoss load(ProbeState state, String key) {
        LatchLoss l = new LatchLoss(state.lostBecause());
        Object before = state.get(key);
        if (before instanceof String why && !why.isBlank() && why.length() <= MAX + CUT.length()
                && why.chars().noneMatch(Character::isISOControl)) {
            // an nhc before this class stored "state unreadable: …" too; it is the state's, not ours
            Arrays.stream(why.split(SEP)).filter(s -> !s.isBlank() && !s.startsWith(STATE_UNREADABLE)).forEach(l.own::add);
        } else if (before != null) {
            l.own.add("an earlier run could not read them back");
        }
        return l;
    }

    /** Adds a reason of this run (kept once). */
    public void note(String why) {
        own.add(why);
    }

    /** Why latches of this boot may be gone, for the report, or null. */
    public String reason() {
        String mine = stored();
        if (stateUnreadable == null) {
            return mine;
        }
        return mine == null ? STATE_UNREADABLE + stateUnreadable : STATE_UNREADABLE + stateUnreadable + SEP + mine;
    }

    /** Keeps the probe's own reasons under {@code key} (removed when there are none). */
    public void save(ProbeState state, String key) {
        state.put(key, stored());
    }

    private String stored() {
        if (own.isEmpty()) {
            return null;
        }
        String s = String.join(SEP, own);
        return s.length() <= MAX ? s : s.substring(0, MAX) + CUT;
    }
}
