package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.plan.Plan;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.engine.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
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
 * </ul>
 */
public final class SlurmAction implements VerdictAction {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmAction.class);

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
        Run run = new Run(settings, new SlurmClient(settings, runner), store, node, checkNames);
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
        private final List<String> lines = new ArrayList<>();
        private final List<String> changes = new ArrayList<>();
        private boolean forceFailure;

        private final java.util.Set<String> checkNames;

        Run(SlurmSettings settings, SlurmClient slurm, StateStore store, String node, java.util.Set<String> checkNames) {
            this.checkNames = checkNames;
            this.settings = settings;
            this.slurm = slurm;
            this.store = store;
            this.node = node;
        }

        ActionOutcome decide(Verdict verdict) {
            Ledger ledger = new Ledger(store.section(SlurmSection.KEY), node);
            if (ledger.invalid() != null) {
                warn("nhc's Slurm record " + store.dir().resolve(SlurmSection.KEY + ".json") + " holds values nhc never writes ("
                        + ledger.invalid() + "); it is not used: nhc asks Slurm what it holds");
            }
            Instant now = clock.instant();
            Intent fresh = Intent.of(verdict, settings);
            Intent intent = fresh;
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

            boolean held = status.drained() || status.failed();
            boolean ours = held && (status.reason().equals(ledger.ownedReason()) || status.reason().equals(ledger.pendingReason()));
            if (!ours && held && Reasons.isNhcsOwn(status.reason(), checkNames) && ledger.missing()) {
                // nhc's own format, and no record of what nhc did: a run changed the node but could not record it (a
                // full disk removes the out-of-date record, a lost state file). It is nhc's drain; nhc takes it back.
                // With a record, a reason in nhc's format that is not the recorded one is an admin's edit: theirs.
                info("node " + node + " is " + status.describe() + " with a reason in nhc's format while nhc's record is missing:"
                        + " nhc treats the drain as its own");
                ledger.own(status.failed() ? SlurmState.FAIL : SlurmState.DRAIN, status.reason(), now);
                ours = true;
            }
            if (ours && status.reason().equals(ledger.pendingReason())) {
                // The intended change is on the node already: a run killed after scontrol but before it could
                // record it. It is nhc's, and this run's own verdict decides what happens next.
                ledger.own(status.failed() ? SlurmState.FAIL : SlurmState.DRAIN, status.reason(), now);
                intent = fresh;
            } else if (!ours && ledger.ownedReason() != null) {
                info("node " + node + " is now " + status.describe() + ", no longer as nhc left it ('" + ledger.ownedReason()
                        + "'); someone else took over, so nhc forgets its drain and will not resume it");
                ledger.disown();
            }
            if (!ours) {
                ledger.clearPending();
            }

            String leaveAlone = status.leaveAloneBecause();
            if (leaveAlone != null) {
                info("leaving node " + node + " (" + status.describe() + ") alone: " + leaveAlone);
                ledger.clearPending();
                return outcome();
            }
            switch (intent.kind()) {
                case HOLD -> hold(ledger, status, ours, intent, now);
                case RELEASE -> release(ledger, status, ours);
                case NOTHING -> {
                    if (ours) {
                        info("node " + node + " stays " + status.describe() + ": a run with only warn/unknown findings neither resumes it nor counts towards resume_after");
                    }
                }
            }
            return outcome();
        }

        private void hold(Ledger ledger, NodeStatus status, boolean ours, Intent intent, Instant now) {
            ledger.passes(0);
            if (ours) {
                SlurmState current = status.failed() ? SlurmState.FAIL : SlurmState.DRAIN;
                if (intent.state() == SlurmState.FAIL && current == SlurmState.DRAIN) {
                    change(ledger, intent.state(), intent.reason(), now, "escalated node " + node + " from DRAIN to FAIL: " + intent.reason(), true);
                } else if (!intent.reason().equals(status.reason())) {
                    // A FAIL nhc set is not downgraded to DRAIN: the hardware fault it was for still needs service.
                    change(ledger, current, intent.reason(), now, "updated the reason of node " + node + " (still "
                            + current.name() + "): " + intent.reason(), false);
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
                forceFailure = true;
                ledger.clearPending();
                error("circuit breaker open: " + breaker + "; NOT draining node " + node + " (it would have set "
                        + intent.state().name() + ": " + intent.reason() + "). If these failures are real, drain by hand; "
                        + "if a rule is wrong, fix the config");
                return;
            }
            change(ledger, intent.state(), intent.reason(), now, "set node " + node + " to " + intent.state().name() + ": " + intent.reason(), true);
        }

        /** Records the intent (so a run killed half-way still knows its drain), then tells Slurm. */
        private void change(Ledger ledger, SlurmState state, String reason, Instant now, String done, boolean withState) {
            ledger.intend(state, reason, now);
            try {
                // Only nhc's Slurm record: in the daemon, other sections may belong to checks still running.
                store.flush(java.util.List.of(SlurmSection.KEY));
            } catch (IOException e) {
                // The record on disk no longer says what nhc is about to do. An out-of-date record would make a later
                // run believe nhc holds nothing and never look; no record makes it ask Slurm and recognise the change
                // as nhc's by its reason. Unlinking needs no free space.
                String forgot;
                try {
                    store.forget(SlurmSection.KEY);
                    forgot = "removed nhc's Slurm record, so the next run asks Slurm and recognises the change as nhc's by its reason ('"
                            + Reasons.PREFIX + " ...')";
                } catch (IOException again) {
                    forgot = "could not remove nhc's out-of-date Slurm record either (" + again.getMessage() + ")";
                }
                warn("cannot save the intent to " + store.dir() + " before calling scontrol (" + e.getMessage() + "); going ahead: " + forgot);
            }
            try {
                if (withState) {
                    slurm.setState(node, state, reason);
                } else {
                    slurm.setReason(node, reason);
                }
            } catch (SlurmUnavailableException e) {
                warn("could not tell Slurm (" + e.getMessage() + "); the " + state.label() + " is kept and applied on the next run");
                return;
            }
            ledger.own(state, reason, now);
            changes.add(withState ? state.label() : "update_reason");
            info(done);
        }

        private void release(Ledger ledger, NodeStatus status, boolean ours) {
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
            changes.add("resume");
            ledger.disown();
        }

        /** Null when a new drain is allowed, else why not. */
        private String circuitBreaker() throws SlurmUnavailableException {
            List<NodeStatus> nodes = slurm.nodes();
            int total = nodes.size();
            if (nodes.stream().noneMatch(n -> n.name().equals(node))) {
                total++;
            }
            long byNhc = nodes.stream().filter(n -> !n.name().equals(node))
                    .filter(n -> (n.drained() || n.failed()) && n.reasonIsNhc()).count();
            // The first drain is always allowed: one sick node is the normal case, and a cluster of one or two
            // nodes could otherwise never be drained. A wrong rule shows as many nodes at once.
            if (byNhc == 0 || byNhc + 1 <= settings.maxDrainedFraction() * total) {
                return null;
            }
            String scope = settings.partition() == null ? "the cluster" : "partition " + settings.partition();
            return byNhc + " of " + total + " nodes of " + scope + " are already drained by nhc; one more would pass "
                    + "max_drained_fraction " + settings.maxDrainedFraction();
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
            return new ActionOutcome(lines, forceFailure, changes);
        }

        private void info(String line) {
            LOG.info(line);
            lines.add("slurm: " + line);
        }

        private void warn(String line) {
            LOG.warn(line);
            lines.add("slurm: " + line);
        }

        private void error(String line) {
            LOG.error(line);
            lines.add("slurm: " + line);
        }
    }
}
