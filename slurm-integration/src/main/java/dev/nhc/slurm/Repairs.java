package dev.nhc.slurm;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.BootId;
import dev.nhc.slurm.repair.Ladder;
import dev.nhc.slurm.repair.RepairRecord;
import dev.nhc.slurm.repair.RepairSettings;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The repair ladder's part of one Slurm decision, between what Slurm says of the node and nhc's
 * record: which reboot states are nhc's own, when the reboot nhc asked for has happened (a new boot
 * id), who ended it otherwise (an admin who cancelled it, Slurm returning the node itself), the
 * next rung for a failing verdict ({@link Ladder}), and the circuit breaker for reboots.
 *
 * <p>After {@code scontrol reboot ASAP nextstate=DOWN}, slurmctld appends to nhc's reason as the
 * reboot goes on: "R", "R : reboot issued", "R : reboot issued : reboot complete" (and "R' : reboot
 * complete" for the FAIL nhc set while the reboot was issued). All are nhc's while the record says
 * it asked for the reboot.
 */
final class Repairs {
    static final List<String> SLURM_SUFFIXES = List.of("", " : reboot issued", " : reboot issued : reboot complete", " : reboot complete");

    private final RepairSettings settings;
    private final Ledger ledger;
    private final RepairRecord record;
    private final History history;
    private final String node;
    private final Instant now;
    private final Path root;
    private final Consumer<String> info;
    private String bootId;
    private boolean bootRead;
    private boolean ended;

    Repairs(RepairSettings settings, Ledger ledger, History history, String node, Path root, Instant now, Consumer<String> info) {
        this.settings = settings;
        this.ledger = ledger;
        this.record = new RepairRecord(ledger.section());
        this.history = history;
        this.node = node;
        this.now = now;
        this.root = root;
        this.info = info;
        if (ledger.damaged()) {
            record.lost(now);
        }
        record.expire(now, settings.window());
    }

    /**
     * Notes what the boot id and Slurm say of a reboot nhc asked for: a new boot id is the reboot
     * seen; the node out of every reboot state on the same boot is a reboot someone cancelled (the
     * ladder then asks for none again in this boot).
     */
    void observe(NodeStatus status) {
        String bootId = bootId();
        if (record.rung() != RepairRecord.Rung.REBOOTING || bootId == null) {
            return;
        }
        if (!bootId.equals(record.bootId())) {
            history.add(History.Event.REBOOT_SEEN, "boot id " + record.bootId() + " -> " + bootId + "; Slurm shows " + status.describe(), now);
            record.rebootSeen(now);
            info.accept("node " + node + " has rebooted (new boot id " + bootId + "): this run re-checks it before it is resumed");
        } else if (!inReboot(status)) {
            String boot = record.bootId();
            record.cancelled(boot);
            record.leave();
            ended = true;
            history.add(History.Event.TOOK_OVER, "the reboot nhc asked for was cancelled before it happened (Slurm shows "
                    + status.describe() + "); no other reboot of nhc's in this boot", now);
            info.accept("the reboot nhc asked for node " + node + " was cancelled (" + status.describe()
                    + "); nhc asks for no other reboot until the node has rebooted");
        }
    }

    /**
     * Whether the node is in the reboot nhc asked for: its reason with what slurmctld appends while the reboot goes on.
     * On every rung: a FAIL for a fault back on the last new boot is set before slurmd registers, and gets " : reboot complete".
     */
    boolean owns(NodeStatus status) {
        String owned = ledger.ownedReason();
        if (owned == null || record.rung() == null || !(status.held() || inReboot(status))) {
            return false;
        }
        return SLURM_SUFFIXES.stream().anyMatch(s -> status.reason().equals(owned + s));
    }

    /**
     * nhc takes back a hold whose record is missing (a wiped or lost state directory): the reboots
     * before cannot be counted, so the ladder asks for none until the window has passed, as for a
     * damaged record — else a node FAILed "replace the part" would climb the ladder from reboot 1.
     */
    void recordMissing() {
        record.lost(now);
    }

    /**
     * Says how the node left nhc's hands, for the history, just before the ledger forgets its hold:
     * back in service after the reboot (slurmctld's ReturnToService=2, or an admin), or someone took it over.
     */
    void lost(NodeStatus status) {
        RepairRecord.Rung rung = record.rung();
        if (ended) {
            return;
        }
        if (rung == RepairRecord.Rung.REBOOTED && !status.held()) {
            history.add(History.Event.RETURNED_TO_SERVICE, "the node went back to work after the reboot before nhc resumed it"
                    + " (slurmctld with ReturnToService=2, or an admin); Slurm shows " + status.describe(), now);
        } else {
            history.add(History.Event.TOOK_OVER, "Slurm shows " + status.describe() + ", no longer as nhc left it ('"
                    + ledger.ownedReason() + "')", now);
        }
        if (rung == RepairRecord.Rung.FAILED) {
            record.forgetReboots(); // someone saw to the part nhc failed the node for
        }
        record.leave();
    }

    /** Whether the node is where Slurm reboots it: nhc's reboot once {@link #owns} said so. */
    static boolean inReboot(NodeStatus status) {
        return status.has("REBOOT_REQUESTED") || status.has("REBOOT_ISSUED");
    }

    /**
     * On the new boot, before slurmd registers (slurmd runs the health check first), the node still
     * shows REBOOT_ISSUED, and the reboot's completion will clear any DRAIN set now; a FAIL it keeps.
     * So a failing verdict then is a FAIL: a node still sick after its reboot never returns to work.
     */
    boolean failBeforeRegistration(NodeStatus status, boolean failing) {
        return failing && record.rung() == RepairRecord.Rung.REBOOTED && status.has("REBOOT_ISSUED");
    }

    /** The next rung for a failing verdict. */
    Ladder.Step next(Verdict verdict) {
        return new Ladder(settings).next(verdict, record, bootId(), now);
    }

    /** This boot's id, read once and only when the ladder needs it. */
    private String bootId() {
        if (!bootRead) {
            bootId = BootId.read(root);
            bootRead = true;
        }
        return bootId;
    }

    /** The reason for a rung: nhc's usual reason with the rung's note first, so that no cut can lose it. */
    static String reason(Verdict verdict, String note) {
        List<Finding> failures = new ArrayList<>(verdict.findings(Severity.FAIL));
        if (!failures.isEmpty()) {
            Finding first = failures.get(0);
            failures.set(0, first.withMessage(note + ": " + first.message()));
        }
        return Reasons.of(failures);
    }

    /** Null when one more node may be put into a reboot nhc asked for, else why not. */
    String refusesReboot(List<NodeStatus> nodes, String partition) {
        CircuitBreaker b = CircuitBreaker.of(settings.maxRebootingFraction(), "max_rebooting_fraction", partition);
        return b.refuses(nodes, node, n -> n.reasonIsNhc() && (inReboot(n) || n.down() && n.reason().endsWith(" : reboot complete")),
                "rebooting");
    }

    void rebootRequested(Ladder.Reboot step) {
        record.rebootRequested(step.faults(), bootId(), now);
    }

    /** nhc set FAIL for a fault that came back after its reboots; false when it had already. */
    boolean failed(Ladder.Recurred step) {
        if (record.rung() == RepairRecord.Rung.FAILED) {
            return false;
        }
        record.failed(step.faults(), now);
        return true;
    }

    /** nhc resumed the node: the ladder is done with it (after a reboot, or after a FAIL someone saw to). */
    void resumed() {
        if (record.rung() == RepairRecord.Rung.FAILED) {
            record.forgetReboots();
        }
        record.leave();
    }
}
