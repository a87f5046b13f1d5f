package dev.nhc.slurm;

import dev.nhc.daemon.DaemonContext;
import dev.nhc.daemon.DaemonPlugin;
import dev.nhc.daemon.MetricsOut;
import dev.nhc.engine.action.VerdictAction.ActionOutcome;
import dev.nhc.engine.plan.Plan;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.RepairRecord;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Slurm's part of {@code nhc daemon}, wanted when the config has a {@code slurm:} section: the
 * same {@link SlurmAction} as the one-shot run, applied the moment the verdict changes — a fatal
 * XID drains the node within a second instead of at the next HealthCheckInterval — and again every
 * {@code settings.interval} while nhc holds the node or has a change pending (so a node nhc drained
 * is resumed once healthy, and a drain Slurm missed is retried). A healthy node nhc does not hold
 * costs slurmctld nothing.
 */
public final class SlurmPlugin implements DaemonPlugin {
    private final SlurmAction action;
    private final Clock clock;
    private final Map<String, LongAdder> changes = new ConcurrentHashMap<>();
    /** Set on start (the daemon's start or reload thread), read on its action thread. */
    private volatile DaemonContext daemon;
    private volatile Instant lastApplied = Instant.EPOCH;
    private volatile boolean breakerOpen;
    private volatile SlurmState held;
    private volatile RepairRecord.Rung rung;
    private volatile int reboots;

    public SlurmPlugin() {
        this(new SlurmAction(), Clock.systemUTC());
    }

    SlurmPlugin(SlurmAction action, Clock clock) {
        this.action = action;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public boolean wanted(Plan plan) {
        return plan.config().hasSection(SlurmSection.KEY);
    }

    @Override
    public boolean actsForHealthProgram() {
        return true;
    }

    @Override
    public void start(DaemonContext d) {
        this.daemon = d;
        Ledger.Peek ledger = Ledger.peek(d.state().section(SlurmSection.KEY), d.node());
        if (ledger.invalid() != null) {
            d.log("slurm: nhc's Slurm record in " + d.state().dir() + " holds values nhc never writes (" + ledger.invalid()
                    + "); it is not used");
        }
        held = ledger.owned();
        ladder(d);
        String holds = ledger.holds(d.node());
        if (holds != null) { // else the daemon's last verdict may still say so, until this plugin has acted on a fresh one
            d.state().nodeHeld(holds);
        }
    }

    @Override
    public void verdict(Verdict verdict, boolean changed) {
        Plan plan = daemon.plan();
        Instant now = clock.instant();
        boolean busy = Ledger.peek(daemon.state().section(SlurmSection.KEY), daemon.node()).needsAction();
        boolean due = Duration.between(lastApplied, now).compareTo(plan.settings().interval()) >= 0;
        if (!changed && !(busy && due)) {
            return;
        }
        lastApplied = now;
        ActionOutcome out = action.apply(verdict, plan, daemon.state(), daemon.node(), now.plus(plan.settings().deadline()));
        breakerOpen = out.forceFailure();
        out.changes().forEach(c -> changes.computeIfAbsent(c, k -> new LongAdder()).increment());
        Ledger.Peek after = Ledger.peek(daemon.state().section(SlurmSection.KEY), daemon.node());
        held = after.owned();
        ladder(daemon);
        daemon.state().nodeHeld(after.holds(daemon.node()));
        if (changed || !out.changes().isEmpty() || out.forceFailure()) {
            out.lines().forEach(daemon::log);
        }
        try {
            // The ledger's later steps (a resume, the ladder's rung) and the history; the daemon saves only the sections it names.
            daemon.state().flush(List.of(SlurmSection.KEY, History.SECTION));
        } catch (IOException e) {
            daemon.log("slurm: cannot save nhc's Slurm record and history: " + e.getMessage());
        }
    }

    /** The repair ladder's rung and reboots in its window (the record keeps no older ones), for the metrics. */
    private void ladder(DaemonContext d) {
        RepairRecord r = new RepairRecord(d.state().section(SlurmSection.KEY));
        rung = r.rung();
        reboots = r.reboots().size();
    }

    @Override
    public List<String> problems() {
        return breakerOpen ? List.of("slurm: the circuit breaker refused to drain this node (see the daemon's log)") : List.of();
    }

    @Override
    public void metrics(MetricsOut out) {
        SlurmState h = held;
        for (SlurmState s : SlurmState.values()) {
            out.gauge("nhc_slurm_node_held", "1 while nhc holds the node in Slurm, by the state it set",
                    h == s ? 1 : 0, "state", s.label());
        }
        for (String a : List.of("drain", "fail", "resume", "update_reason", "reboot")) {
            LongAdder n = changes.get(a);
            out.counter("nhc_slurm_actions", "changes nhc made to the node in Slurm", n == null ? 0 : n.sum(), "action", a);
        }
        RepairRecord.Rung r = rung;
        for (RepairRecord.Rung each : RepairRecord.Rung.values()) {
            out.gauge("nhc_slurm_repair_rung", "1 while the node is on this rung of the repair ladder (rebooting: nhc asked Slurm to reboot it;"
                    + " rebooted: back on a new boot, not yet resumed; failed: the fault came back after its reboots)", r == each ? 1 : 0,
                    "rung", each.label());
        }
        out.gauge("nhc_slurm_repair_reboots", "reboots nhc asked for within slurm.reboot_window", reboots);
        for (String step : List.of("reboot", "recurred", "reboot_deferred")) {
            LongAdder n = changes.get(step);
            out.counter("nhc_slurm_repair_steps", "repair ladder steps: reboots asked for, FAILs for a fault back after its reboots,"
                    + " reboots the circuit breaker put off", n == null ? 0 : n.sum(), "step", step);
        }
        out.gauge("nhc_slurm_circuit_breaker_open", "1 when the circuit breaker refused to drain this node in the latest decision",
                breakerOpen ? 1 : 0);
    }

    @Override
    public void close() {
        // nothing held open: every decision is a few scontrol calls
    }
}
