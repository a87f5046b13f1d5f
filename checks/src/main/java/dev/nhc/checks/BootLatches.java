package dev.nhc.checks;

import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.units.Unit;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * The faults a check latches until the node reboots or {@code nhc clear}: one store for
 * {@code gpu.xid} (fatal XIDs), {@code kernel.log} (fail patterns) and {@code gpu.fabric} (fatal
 * fabric manager errors). Kept in the check's state under a prefix: {@code PREFIX.latched} (the
 * probe's entries, which it reads back with its own checks), {@code PREFIX.boot_id} (the boot they
 * belong to: a new boot id drops them, the devices were reset with the node) and
 * {@code PREFIX.state_lost} (why some of this boot's could not be read back, {@link LatchLoss}).
 *
 * <p>A fault that silently fell out of the state would resume a drained node, so a loss — a
 * damaged entry, an invalid boot id, or the state itself lost ({@link ProbeState#lostBecause()},
 * after which the probe's reader starts again from the start of the boot and latches again what
 * its source still shows) — is observed ({@code state_lost}, {@code state_problem}) until reboot or
 * clear: the check is {@code unknown}, never a pass, and fails while nhc holds the node out
 * ({@code node_held}, {@code held_by}; {@link ProbeState#heldBecause()}), since an unknown check
 * would let dstack schedule on it again.
 */
public final class BootLatches {
    private static final Pattern BOOT = Pattern.compile("[\\x21-\\x7e]{1,128}");

    private final String prefix;
    private final Object saved;
    private final LatchLoss loss;
    private final String held;

    private BootLatches(String prefix, Object saved, LatchLoss loss, String held) {
        this.prefix = prefix;
        this.saved = saved;
        this.loss = loss;
        this.held = held;
    }

    /** The latches of this boot under {@code prefix}: none after a reboot; {@code bootId} null when it cannot be read. */
    public static BootLatches load(ProbeState state, String prefix, String bootId) {
        Object storedBoot = state.get(prefix + ".boot_id");
        boolean validBoot = storedBoot instanceof String s && BOOT.matcher(s).matches();
        if (validBoot && bootId != null && !bootId.equals(storedBoot)) {
            // rebooted: the devices were reset with the node, and so is what was lost
            return new BootLatches(prefix, null, LatchLoss.none(), null);
        }
        BootLatches l = new BootLatches(prefix, state.get(prefix + ".latched"), LatchLoss.load(state, prefix + ".state_lost"),
                state.heldBecause());
        if (storedBoot != null && !validBoot) {
            // keep what is there: a latch of an earlier boot is safer than a lost one of this boot
            l.lost("the boot id kept with them is invalid, so they may belong to this boot or an earlier one");
        }
        return l;
    }

    /** This boot's entries as they were saved (the probe checks every value), or null: none, or rebooted. */
    public Object saved() {
        return saved;
    }

    /** Notes why some of this boot's latches could not be read back (kept once until reboot or clear). */
    public void lost(String why) {
        loss.note(why);
    }

    /** Why latches of this boot may be gone, or null. */
    public String lost() {
        return loss.reason();
    }

    /** Keeps the probe's entries ({@code latched}: null when none), what was lost and the boot they belong to. */
    public void save(ProbeState state, Object latched, String bootId) {
        state.put(prefix + ".latched", latched);
        loss.save(state, prefix + ".state_lost");
        if (bootId != null) {
            state.put(prefix + ".boot_id", bootId);
        }
    }

    /** The loss on the observation of the reading itself (the fields {@link #fields} declares); whether nhc holds the node only with a loss. */
    public Observation.Builder observe(Observation.Builder o) {
        String lost = lost();
        return o.put("state_lost", lost != null).put("state_problem", lost)
                .put("node_held", lost == null ? null : held != null).put("held_by", lost == null ? null : held);
    }

    /**
     * The fields and default rules of a loss, on the entity that {@code where} names ("kernel log");
     * {@code what}: the latches ("latched XIDs"), {@code missing}: what may be missing ("fatal XIDs of this boot"),
     * {@code source}: where they show again ("the kernel log").
     */
    /** The loss's fields reported only when there is a loss: a probe marks them optional after {@link #fields}. */
    public static final String[] OPTIONAL_FIELDS = {"state_problem", "node_held", "held_by"};

    public static ProbeSpec.Builder fields(ProbeSpec.Builder b, String where, String what, String missing, String source) {
        return b.field("state_lost", Unit.BOOLEAN, where + ": " + what + " of this boot could not be read back from the check's state")
                .field("state_problem", Unit.TEXT, where + ": why they could not")
                .field("node_held", Unit.BOOLEAN, where + ": with state_lost, whether nhc holds the node out of service (its Slurm record, its last verdict)")
                .field("held_by", Unit.TEXT, where + ": what says so")
                .rule(DefaultRule.unknown(Map.of("state_lost", true), what + " could not be read back from the check's state "
                        + "({state_problem}); " + missing + " may be missing until reboot or `nhc clear {check}`"))
                .rule(DefaultRule.fail(Map.of("state_lost", true, "node_held", true), what + " could not be read back from the check's "
                        + "state ({state_problem}) while {held_by}: the node stays out until reboot or `nhc clear {check}` (what "
                        + source + " still shows of this boot is latched again)"));
    }
}
