package dev.nhc.slurm.repair;

import dev.nhc.model.Verdict;

import java.time.Instant;
import java.util.Set;

/**
 * The next rung for a failing verdict: reboot the node (when its jobs end), FAIL it because the
 * fault came back after {@code max_reboots} reboots within the window, or just hold it as any
 * failing node is held, saying why not. Decides only; the Slurm action asks Slurm, checks the
 * circuit breakers and writes the record.
 */
public final class Ladder {
    /** What to do about the failing verdict. */
    public sealed interface Step permits Reboot, Recurred, Hold {
    }

    /** Ask Slurm for reboot {@code n} of {@code max} for these faults; {@code note} leads nhc's reason. */
    public record Reboot(Set<String> faults, int n, int max) implements Step {
        public String note() {
            return "reboot " + n + " of " + max;
        }
    }

    /** FAIL the node: the faults came back after {@code reboots} reboots; {@code note} leads nhc's reason. */
    public record Recurred(Set<String> faults, int reboots) implements Step {
        public String note() {
            return "recurred after " + reboots + " reboot" + (reboots == 1 ? "" : "s") + ": replace the part";
        }
    }

    /** No reboot: hold the node as any failing node is held; {@code why} is for the log (null when the ladder is off). */
    public record Hold(String why) implements Step {
    }

    private final RepairSettings settings;

    public Ladder(RepairSettings settings) {
        this.settings = settings;
    }

    /**
     * @param bootId this boot's id (null when it cannot be read)
     */
    public Step next(Verdict verdict, RepairRecord record, String bootId, Instant now) {
        if (!settings.reboot()) {
            return new Hold(null);
        }
        RebootCause cause = RebootCause.of(verdict, settings);
        if (!cause.allowed()) {
            return new Hold("no reboot: " + cause.refusal());
        }
        if (record.rung() == RepairRecord.Rung.FAILED && record.faults().stream().anyMatch(cause.faults()::contains)) {
            // nhc failed the node for these already: the reason stays as it was, with no new count.
            return new Recurred(cause.faults(), record.rebootsFor(record.faults(), record.since(), settings.window()));
        }
        int done = record.rebootsFor(cause.faults(), now, settings.window());
        if (done >= settings.maxReboots()) {
            return new Recurred(cause.faults(), done);
        }
        if (bootId == null) {
            return new Hold("no reboot: this boot's id cannot be read (/proc/sys/kernel/random/boot_id under settings.root),"
                    + " so nhc could not tell when the node has rebooted");
        }
        Instant lost = record.lostSince();
        if (lost != null && !lost.isBefore(now.minus(settings.window()))) {
            return new Hold("no reboot: nhc's Slurm record was lost or damaged on " + lost + ", so it cannot count the reboots"
                    + " before; it asks for none until " + lost.plus(settings.window()));
        }
        if (bootId.equals(record.cancelledBoot())) {
            return new Hold("no reboot: someone cancelled the reboot nhc asked for in this boot; nhc asks for none again until the"
                    + " node has rebooted");
        }
        return new Reboot(cause.faults(), done + 1, settings.maxReboots());
    }
}
