package dev.nhc.slurm.repair;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a reboot would be for in a failing verdict: its latched faults, named {@code check: entity}
 * (the part that failed, whatever XID or error it showed), or why nhc must not reboot at all.
 *
 * <p>A reboot is only for a fault a probe latched until reboot (the kernel or the driver reported
 * it), whose remedy is a reboot (or a GPU reset, when the config lets a reboot do it). Every other
 * failing finding must be one a reboot repairs too; a check that timed out or could not run and
 * so fails (on_unknown: fail) refuses the reboot, whatever it might mean: nhc never reboots for what
 * it could not see. One that timed out without failing the node is no reason either way.
 */
public record RebootCause(Set<String> faults, String refusal) {

    public RebootCause {
        faults = Set.copyOf(faults);
    }

    public boolean allowed() {
        return refusal == null;
    }

    static RebootCause refused(String why) {
        return new RebootCause(Set.of(), why);
    }

    public static RebootCause of(Verdict verdict, RepairSettings settings) {
        for (CheckResult c : verdict.checks()) {
            if (c.severity() == Severity.FAIL && (c.status() == CheckStatus.TIMED_OUT || c.status() == CheckStatus.ERROR)) {
                return refused("check " + c.name() + " " + c.status().label().replace('-', ' ')
                        + ": nhc never reboots for a check that did not finish");
            }
        }
        Set<String> faults = new LinkedHashSet<>();
        List<String> others = new ArrayList<>();
        for (Finding f : verdict.findings(Severity.FAIL)) {
            String repairable = repairable(f.remedy(), settings);
            if (repairable != null) {
                return refused(f.check() + ": " + f.entity().label() + ": " + repairable);
            }
            if (f.latched()) {
                faults.add(key(f));
            } else {
                others.add(key(f));
            }
        }
        if (faults.isEmpty()) {
            return refused("no failing finding is a fault latched until reboot (" + String.join(", ", others)
                    + "); nhc reboots only for those");
        }
        return new RebootCause(faults, null);
    }

    /** Null when a reboot repairs a fault with this remedy, else why not. */
    private static String repairable(Remedy remedy, RepairSettings settings) {
        return switch (remedy) {
            case REBOOT -> null;
            case RESET_GPU -> settings.resetGpuByReboot() ? null
                    : "its remedy is a GPU reset, which nhc cannot do (set slurm.reset_gpu_by_reboot: true to let a reboot do it)";
            case RESTART_APP -> "an application fault: restarting the job is the remedy, not a reboot";
            case HARDWARE -> "its remedy is hardware service: a reboot does not repair it";
            case NONE -> "it names no remedy a reboot would apply";
        };
    }

    /**
     * The part a finding is about: its check and entity, with the PCI address when the entity has
     * one ("xid: GPU 1 (0000:3b:00.0)"): a GPU's index may change across the reboot, its slot does not.
     */
    static String key(Finding f) {
        String label = f.entity().label();
        String pci = f.entity().pciBusId();
        return f.check() + ": " + (pci == null || label.contains(pci) ? label : label + " (" + pci + ")");
    }
}
