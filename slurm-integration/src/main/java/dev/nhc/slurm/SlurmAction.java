package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.plan.Plan;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.engine.state.StateStore;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.Ladder;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Slurm mode: turns a verdict into DRAIN, FAIL or RESUME of this node, and nothing else.
 *
 * <ul>
 *   <li>fail findings: DRAIN (FAIL for {@code slurm_state: fail} or {@code failure_state: fail}) with
 *       reason "NHC: check: message; …"; a changed reason on a node nhc holds is updated in place.</li>
 *   <li>pass: RESUME, only of a node nhc itself drained whose reason is still nhc's, after
 *       {@code resume_after} consecutive passing runs.</li>
 *   <li>warn and unknown: no change in Slurm (and they neither count towards nor reset resume_after).</li>
 *   <li>a node drained, failed or down by anyone else is never resumed and its reason never overwritten;
 *       states owned by other parts of Slurm are listed in {@link NodeStatus#leaveAloneBecause()}.</li>
 *   <li>circuit breaker: no new drain when nhc would then hold more than {@code max_drained_fraction} of the nodes.</li>
 *   <li>Slurm unreachable or the node not registered yet: the intended drain is kept in the state store
 *       and applied on a later run.</li>
 *   <li>{@code repair: reboot}: the repair ladder ({@link Repairs}) may ask Slurm to reboot the node instead,
 *       and FAILs it when the fault comes back after its reboots.</li>
 * </ul>
 * Every change and every change of verdict is added to the node's {@link History}.
 */
public final class SlurmAction implements VerdictAction {
    private final Map<String, String> env;
    private final Clock clock;
    private final Duration backoff;

    public SlurmAction() {
        this(System.getenv(), Clock.systemUTC(), Duration.ofSeconds(1));
    }

    SlurmAction(Map<String, String> env, Clock clock, Duration backoff) {
        this.env = Map.copyOf(env);
        this.clock = clock;
        this.backoff = backoff;
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public ActionOutcome apply(Verdict verdict, Plan plan, StateStore store, String node, Instant deadline) {
        SlurmSettings settings = SlurmSettings.from(plan.config().section(SlurmSection.KEY), env);
        java.util.Set<String> checkNames = new java.util.HashSet<>();
        plan.config().checks().forEach(c -> checkNames.add(c.name()));
        Map<String, String> childEnv = new LinkedHashMap<>();
        childEnv.put("LC_ALL", "C");
        if (settings.slurmConf() != null) {
            childEnv.put("SLURM_CONF", settings.slurmConf().toString());
        }
        SlurmCommands runner = new SlurmCommands(childEnv, settings.commandTimeout(), settings.retries(), deadline, clock, backoff,
                Ownership.runningAsRoot());
        Run run = new Run(settings, new SlurmClient(settings, runner), store, node, checkNames, plan.settings().root());
        return run.decide(verdict);
    }

    @Override
    public String holds(StateStore store, String node) {
        return Ledger.peek(store.section(SlurmSection.KEY), node).holds(node);
    }

    /** What the verdict asks of Slurm: hold the node (DRAIN/FAIL with a reason), release it (PASS), or nothing. */
    record Intent(Kind kind, SlurmState state, String reason) {
        enum Kind { HOLD, RELEASE, NOTHING }

        /** The severity policy decides; Slurm adds only the reason text. */
        static Intent of(Verdict verdict, SlurmSettings settings) {
            SlurmIntent i = SlurmIntent.of(verdict, settings.failureState());
            return switch (i.kind()) {
                case HOLD -> new Intent(Kind.HOLD, i.state(), Reasons.of(i.failures()));
                case RELEASE -> new Intent(Kind.RELEASE, null, null);
                case NOTHING -> new Intent(Kind.NOTHING, null, null);
            };
        }
    }

    /** One decision for one node; collects the lines for the report. */
    private final class Run {
        private final SlurmSettings settings;
        private final SlurmClient slurm;
        private final StateStore store;
        private final String node;
        private final Report report = new Report();

        private final java.util.Set<String> checkNames;
        private final java.nio.file.Path root;
        private final History history;
        private List<NodeStatus> counted;
        private NodeChange change;

        Run(SlurmSettings settings, SlurmClient slurm, StateStore store, String node, java.util.Set<String> checkNames,
            java.nio.file.Path root) {
            this.checkNames = checkNames;
            this.settings = settings;
            this.slurm = slurm;
            this.store = store;
            this.node = node;
            this.root = root;
            this.history = new History(() -> store.section(History.SECTION));
        }

        ActionOutcome decide(Verdict verdict) {
            Ledger ledger = new Ledger(store.section(SlurmSection.KEY), node);
            change = new NodeChange(store, ledger, history, report);
            if (ledger.invalid() != null) {
                warn("nhc's Slurm record " + store.dir().resolve(SlurmSection.KEY + ".json") + " holds values nhc never writes ("
                        + ledger.invalid() + "); it is not used: nhc asks Slurm what it holds");
            }
            Instant now = clock.instant();
            Intent fresh = Intent.of(verdict, settings);
            if (ledger.verdictChanged(verdict.severity())) {
                history.verdict(verdict, fresh.reason(), now);
            }
            Intent intent = fresh;
            Repairs repairs = new Repairs(settings.repair(), ledger, history, node, root, now, this::info);
            if (intent.kind() != Intent.Kind.HOLD && ledger.ownedReason() == null && ledger.pendingState() == null && !ledger.missing()) {
                // nhc does not hold the node and has nothing to change: the ledger knows, so slurmctld is not asked
                // (at 4,000 nodes every 300 s, two RPCs per healthy run would be ~27 RPC/s for nothing).
                ledger.passes(0);
                return outcome();
            }
            if (intent.kind() != Intent.Kind.HOLD && ledger.pendingState() != null) {
                Instant since = ledger.pendingSince();
                if (since != null && Duration.between(since, now).compareTo(settings.pendingMaxAge()) <= 0) {
                    // A failure seen while Slurm could not be told still counts once Slurm is back.
                    intent = new Intent(Intent.Kind.HOLD, ledger.pendingState(), ledger.pendingReason());
                    info("applying the " + intent.state().label() + " intended on " + since + " when Slurm could not be reached");
                } else {
                    info("dropping the " + ledger.pendingState().label() + " intended on " + since + ": older than pending_max_age "
                            + settings.pendingMaxAge().toSeconds() + "s");
                    ledger.clearPending();
                }
            }

            NodeStatus status;
            try {
                status = slurm.node(node);
            } catch (SlurmUnavailableException e) {
                return unreachable(ledger, intent, now, e);
            }

            repairs.observe(status);
            boolean held = status.drained() || status.failed();
            boolean ours = held && (status.reason().equals(ledger.ownedReason()) || status.reason().equals(ledger.pendingReason()))
                    || repairs.owns(status);
            if (!ours && held && Reasons.isNhcsOwn(status.reason(), checkNames) && ledger.missing()) {
                // nhc's own format, and no record of what nhc did: a run changed the node but could not record it (a
                // full disk removes the out-of-date record, a lost state file). It is nhc's drain; nhc takes it back.
                // With a record, a reason in nhc's format that is not the recorded one is an admin's edit: theirs.
                info("node " + node + " is " + status.describe() + " with a reason in nhc's format while nhc's record is missing:"
                        + " nhc treats the drain as its own");
                ledger.own(status.failed() ? SlurmState.FAIL : SlurmState.DRAIN, status.reason(), now);
                repairs.recordMissing();
                ours = true;
            }
            if (ours && status.reason().equals(ledger.pendingReason())) {
                // The intended change is on the node already: a run killed after scontrol but before it could
                // record it. It is nhc's, and this run's own verdict decides what happens next.
                ledger.own(status.failed() ? SlurmState.FAIL : SlurmState.DRAIN, status.reason(), now);
                intent = fresh;
            } else if (!ours && ledger.ownedReason() != null) {
                repairs.lost(status);
                info("node " + node + " is now " + status.describe() + ", no longer as nhc left it ('" + ledger.ownedReason()
                        + "'); someone else took over, so nhc forgets its drain and will not resume it");
                ledger.disown();
            }
            if (!ours) {
                ledger.clearPending();
            }

            String leaveAlone = status.leaveAloneBecause();
            if (leaveAlone != null && ours && Repairs.inReboot(status)) {
                if (repairs.failBeforeRegistration(status, intent.kind() == Intent.Kind.HOLD)) {
                    Ladder.Step step = repairs.next(verdict);
                    String reason = step instanceof Ladder.Recurred r ? Repairs.reason(verdict, r.note()) : intent.reason();
                    if (change.apply(SlurmState.FAIL, reason, now, "node " + node + " still fails on its new boot, before slurmd registers:"
                            + " set FAIL, which the reboot's completion keeps (a DRAIN it would clear): " + reason, "fail",
                            () -> slurm.setState(node, SlurmState.FAIL, reason)) && step instanceof Ladder.Recurred r && repairs.failed(r)) {
                        report.changed("recurred");
                    }
                } else {
                    info("node " + node + " is in the reboot nhc asked for (" + status.describe() + "): Slurm reboots it when its jobs end");
                }
                return outcome();
            }
            if (leaveAlone != null) {
                info("leaving node " + node + " (" + status.describe() + ") alone: " + leaveAlone);
                ledger.clearPending();
                return outcome();
            }
            switch (intent.kind()) {
                // A drain kept from a run that could not reach Slurm is applied as it was meant; the ladder is for this verdict.
                case HOLD -> {
                    if (intent == fresh) {
                        repair(ledger, status, ours, intent, verdict, repairs, now);
                    } else {
                        hold(ledger, status, ours, intent, now);
                    }
                }
                case RELEASE -> release(ledger, status, ours, repairs, now);
                case NOTHING -> {
                    if (ours) {
                        info("node " + node + " stays " + status.describe() + ": a run with only warn/unknown findings neither resumes it nor counts towards resume_after");
                    }
                }
            }
            return outcome();
        }

        /**
         * A failing verdict: the repair ladder's rung when it has one (a reboot; FAIL for a fault back after its
         * reboots), else the hold every failing node gets.
         */
        private void repair(Ledger ledger, NodeStatus status, boolean ours, Intent intent, Verdict verdict, Repairs repairs, Instant now) {
            Ladder.Step step = repairs.next(verdict);
            if (step instanceof Ladder.Recurred r) {
                Intent failed = new Intent(Intent.Kind.HOLD, SlurmState.FAIL, Repairs.reason(verdict, r.note()));
                hold(ledger, status, ours, failed, now);
                if (failed.reason().equals(ledger.ownedReason()) && repairs.failed(r)) {
                    report.changed("recurred");
                }
                return;
            }
            if (step instanceof Ladder.Reboot r && (ours || !status.held())) {
                if (reboot(ledger, status, ours, r, Repairs.reason(verdict, r.note()), repairs, now)) {
                    return;
                }
            } else if (step instanceof Ladder.Hold h && h.why() != null) {
                info(h.why());
            }
            hold(ledger, status, ours, intent, now);
        }

        /** Asks Slurm for the reboot within both circuit breakers; false when it did not, and the node is held as usual. */
        private boolean reboot(Ledger ledger, NodeStatus status, boolean ours, Ladder.Reboot step, String reason, Repairs repairs,
                               Instant now) {
            String breaker;
            try {
                breaker = ours ? null : circuitBreaker();
                breaker = breaker != null ? breaker : repairs.refusesReboot(nodes(), settings.partition());
            } catch (SlurmUnavailableException e) {
                return false;
            }
            if (breaker != null) {
                report.changed("reboot_deferred");
                warn("no reboot: circuit breaker open: " + breaker + "; the node is held meanwhile and the reboot asked for on a later run");
                return false;
            }
            ledger.passes(0);
            if (change.apply(status.failed() ? SlurmState.FAIL : SlurmState.DRAIN, reason, now, "asked Slurm to reboot node " + node
                    + " when its jobs end (" + step.note() + "): " + reason, "reboot", () -> slurm.reboot(node, reason))) {
                repairs.rebootRequested(step);
            }
            return true;
        }

        private void hold(Ledger ledger, NodeStatus status, boolean ours, Intent intent, Instant now) {
            ledger.passes(0);
            if (ours) {
                SlurmState current = status.failed() ? SlurmState.FAIL : SlurmState.DRAIN;
                String reason = intent.reason();
                if (intent.state() == SlurmState.FAIL && current == SlurmState.DRAIN || !status.drained() && !status.failed()) {
                    // DRAIN to FAIL; or a node DOWN after the reboot nhc asked for, which needs nhc's state back.
                    SlurmState state = intent.state() == SlurmState.FAIL ? SlurmState.FAIL : current;
                    String done = status.drained() ? "escalated node " + node + " from DRAIN to FAIL: " + reason
                            : "set node " + node + " (" + status.describe() + ") to " + state.name() + ": " + reason;
                    change.apply(state, reason, now, done, state.label(), () -> slurm.setState(node, state, reason));
                } else if (!intent.reason().equals(status.reason())) {
                    // A FAIL nhc set is not downgraded to DRAIN: the hardware fault it was for still needs service.
                    change.apply(current, reason, now, "updated the reason of node " + node + " (still "
                            + current.name() + "): " + reason, "update_reason", () -> slurm.setReason(node, reason));
                } else {
                    info("node " + node + " stays " + current.name() + " by nhc: " + intent.reason());
                    ledger.clearPending();
                }
                return;
            }
            if (status.held()) {
                info("node " + node + " is " + status.describe() + " by someone else: nhc leaves its state and reason alone"
                        + " (it would have set " + intent.state().name() + ": " + intent.reason() + ")");
                return;
            }
            String breaker;
            try {
                breaker = circuitBreaker();
            } catch (SlurmUnavailableException e) {
                ledger.intend(intent.state(), intent.reason(), now);
                warn("cannot count drained nodes for the circuit breaker (" + e.getMessage() + "); the "
                        + intent.state().label() + " is kept and tried again on the next run");
                return;
            }
            if (breaker != null) {
                report.forceFailure();
                ledger.clearPending();
                error("circuit breaker open: " + breaker + "; NOT draining node " + node + " (it would have set "
                        + intent.state().name() + ": " + intent.reason() + "). If these failures are real, drain by hand; "
                        + "if a rule is wrong, fix the config");
                return;
            }
            change.apply(intent.state(), intent.reason(), now, "set node " + node + " to " + intent.state().name() + ": " + intent.reason(),
                    intent.state().label(), () -> slurm.setState(node, intent.state(), intent.reason()));
        }

        private void release(Ledger ledger, NodeStatus status, boolean ours, Repairs repairs, Instant now) {
            if (!ours) {
                ledger.passes(0);
                return;
            }
            int passes = ledger.passes() + 1;
            ledger.passes(passes);
            if (passes < settings.resumeAfter()) {
                info("node " + node + " passed " + passes + " of " + settings.resumeAfter() + " runs needed before nhc resumes it");
                return;
            }
            try {
                slurm.resume(node);
            } catch (SlurmUnavailableException e) {
                warn("could not resume node " + node + " (" + e.getMessage() + "); tried again on the next passing run");
                return;
            }
            info("resumed node " + node + " after " + passes + " passing run(s) (nhc had set " + status.describe() + ")");
            report.changed("resume");
            history.add(History.Event.RESUME, "after " + passes + " passing run(s); Slurm showed " + status.describe(), now);
            repairs.resumed();
            ledger.disown();
        }

        /** Null when a new drain is allowed, else why not. */
        private String circuitBreaker() throws SlurmUnavailableException {
            return CircuitBreaker.of(settings.maxDrainedFraction(), "max_drained_fraction", settings.partition())
                    .refuses(nodes(), node, n -> (n.drained() || n.failed()) && n.reasonIsNhc(), "drained");
        }

        /** The nodes the circuit breakers count, asked of Slurm once a run. */
        private List<NodeStatus> nodes() throws SlurmUnavailableException {
            if (counted == null) {
                counted = slurm.nodes();
            }
            return counted;
        }

        private ActionOutcome unreachable(Ledger ledger, Intent intent, Instant now, SlurmUnavailableException e) {
            String what = e instanceof NodeNotFoundException ? "node " + node + " is not registered with slurmctld"
                    : "Slurm cannot be reached";
            switch (intent.kind()) {
                case HOLD -> {
                    ledger.passes(0);
                    ledger.intend(intent.state(), intent.reason(), now);
                    warn(what + " (" + e.getMessage() + "); will set " + intent.state().name() + " (" + intent.reason()
                            + ") on the next run that reaches it");
                }
                case RELEASE -> {
                    if (ledger.ownedReason() != null) {
                        ledger.passes(ledger.passes() + 1);
                    }
                    warn(what + " (" + e.getMessage() + "); nothing changed");
                }
                case NOTHING -> warn(what + " (" + e.getMessage() + "); nothing changed");
            }
            return outcome();
        }


        private ActionOutcome outcome() {
            return report.outcome();
        }

        private void info(String line) {
            report.info(line);
        }

        private void warn(String line) {
            report.warn(line);
        }

        private void error(String line) {
            report.error(line);
        }
    }
}
