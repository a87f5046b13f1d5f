package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction.ActionOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/** What one Slurm decision says (each line logged and kept for the run's report) and changes (for metrics). */
final class Report {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmAction.class);

    private final List<String> lines = new ArrayList<>();
    private final List<String> changes = new ArrayList<>();
    private boolean forceFailure;

    void info(String line) {
        LOG.info(line);
        lines.add("slurm: " + line);
    }

    void warn(String line) {
        LOG.warn(line);
        lines.add("slurm: " + line);
    }

    void error(String line) {
        LOG.error(line);
        lines.add("slurm: " + line);
    }

    /** A change made (drain, fail, resume, update_reason, reboot) or one the circuit breaker put off (reboot_deferred). */
    void changed(String label) {
        changes.add(label);
    }

    /** The run must exit 1 even though no finding failed: the circuit breaker refused to drain. */
    void forceFailure() {
        forceFailure = true;
    }

    ActionOutcome outcome() {
        return new ActionOutcome(lines, forceFailure, changes);
    }
}
