package dev.nhc.daemon;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigProblem;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.VerdictJson;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunLock;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.PriorObservations;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@code nhc daemon}: every check of the plan on its own schedule ({@code every:}, else
 * {@code settings.interval}), each run through the one {@link PlanExecutor} on its own thread so
 * that a slow check never delays another; the latest verdict kept in memory and in the state
 * store, served on /healthz, /v1/verdict and /metrics and on the verdict socket, and handed to the
 * plugins (Slurm's action, dstack's proxy) whenever it is rebuilt. SIGHUP reloads the config (an
 * invalid one is reported and the old one kept), SIGTERM stops cleanly. An {@code every:} check
 * runs only when due: after a restart by its saved last run, over a reload by its kept timing.
 *
 * <p>The daemon holds the node's run lock for its whole life: it and its plugins are the only
 * writers of the state directory and of Slurm's view of the node, and a one-shot run started
 * meanwhile (slurmd's HealthCheckProgram) steps aside. At start it serves its last verdict from
 * the state store until its checks have run again.
 *
 * <p>A check whose run does not return within its timeout (plus a grace for the executor's own
 * abandonment) gets the severity policy's timeout finding, and is not started again while that
 * run is still stuck, so hung native calls cannot pile up threads.
 */
public final class Daemon implements DaemonContext, AutoCloseable {
    static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);
    private static volatile Duration grace = DEFAULT_GRACE;
    static final String STATE_SECTION = "daemon";

    /** Loads, validates and plans the config file. */
    @FunctionalInterface
    public interface PlanSource {
        Plan load() throws ConfigException;
    }

    private final PlanSource source;
    private final PlanExecutor executor;
    private final SeverityPolicy policy;
    /**
     * Wall-clock time: only for what is shown and saved (a verdict's time, an every: check's last run
     * across restarts). Every schedule, deadline and age is System.nanoTime's, which a clock stepped
     * back or forth (NTP, an admin) does not move.
     */
    private final Clock clock;
    private final String node;
    private final PrintStream log;
    private final Map<Class<?>, Object> services;
    private final ScheduledExecutorService timer;
    private final ExecutorService workers;
    /** Plugins get verdicts on this one thread, in order: a verdict never overtakes an older one (their other calls: see DaemonPlugin). */
    private final ExecutorService actions;
    /** The verdict the plugins get next; null while none waits. */
    private final AtomicReference<Verdict> newestForPlugins = new AtomicReference<>();
    private final Instant startedAt;
    private final AtomicLong stateWriteErrors = new AtomicLong();
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong reloadFailures = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<RecheckTrigger> triggers = new CopyOnWriteArrayList<>();
    private final List<DaemonPlugin> available;
    private final List<DaemonPlugin> running = new CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    private volatile Generation current;
    private volatile Verdict verdict;
    /** The verdict is the one restored at start, until every check has run once. */
    private volatile boolean restored;
    private volatile String stateProblem;
    private volatile String reloadProblem;
    private List<String> lastFindings = List.of();
    private RunLock runLock;
    private StatusServer statusServer;
    private VerdictSocket verdictSocket;
    private DaemonSettings settings;
    private ScheduledFuture<?> tick;
    private volatile boolean closed;
    /** What {@link #fatal} does in {@code nhc daemon}: exit so that systemd restarts it; null (tests): log only. */
    private volatile Consumer<String> fatalExit;

    /** Everything that belongs to one loaded plan; a reload replaces it whole. */
    private final class Generation {
        final Plan plan;
        final StateStore state;
        final Map<String, Slot> slots = new LinkedHashMap<>();
        /** The daemon's own changes to the state (verdict, clears) as one step each; never the store's monitor, which is not ours. */
        final Object stateChanges = new Object();
        volatile boolean retired;

        Generation(Plan plan, StateStore state, Generation before) {
            this.plan = plan;
            this.state = state;
            for (PlannedCheck c : plan.checks()) {
                Slot old = before == null ? null : before.slots.get(c.name());
                slots.put(c.name(), new Slot(this, c, old == null ? new Runs() : old.runs));
            }
        }
    }

    /**
     * What the runs of one check name share across reloads: a reload must not start a second run
     * of a check whose run (or hung probe) from the previous config is still going.
     */
    private static final class Runs {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicBoolean rerun = new AtomicBoolean();
        /** A probe the executor abandoned at its timeout and that has not returned yet: no new run until it does. */
        volatile CompletableFuture<Void> stuck;
        /** {@code nhc clear} came while a run was going: that run wrote back what it had read, so forget again when it ends. */
        final AtomicBoolean clearPending = new AtomicBoolean();
        /** Scheduled runs not started because the probe still hangs (for tests: the signal that the schedule went on). */
        final AtomicInteger skippedWhileHung = new AtomicInteger();
    }

    /** One check's schedule and latest result. */
    private final class Slot {
        final Generation gen;
        final PlannedCheck check;
        final Duration every;
        final Runs runs;
        /** The slot of the same name in the next generation, once a reload replaced this one. */
        volatile Slot successor;
        /** The check kept its probe and interval over a reload: a run of the old slot is still its answer. */
        volatile boolean sameAsBefore;
        volatile ScheduledFuture<?> next;
        volatile CheckResult last;
        volatile Instant finishedAt;
        /** {@link #finishedAt} on the monotonic clock, for its age; 0 before the first result. */
        volatile long finishedNanos;

        Slot(Generation gen, PlannedCheck check, Runs runs) {
            this.gen = gen;
            this.check = check;
            this.every = check.interval(gen.plan.settings().interval());
            this.runs = runs;
        }
    }

    /** How long past a check's timeout the daemon waits for the executor's own abandonment; short in tests. */
    static void graceForTests(Duration d) {
        grace = d;
    }

    /**
     * @param services what probes get through ProbeContext#service (e.g. the NVML XID event queue)
     * @param plugins  every plugin on the class path; those the plan wants are started
     */
    public Daemon(PlanSource source, PlanExecutor executor, Clock clock, String node, PrintStream log,
                  Map<Class<?>, Object> services, List<DaemonPlugin> plugins) {
        this.source = source;
        this.executor = executor;
        this.policy = executor.policy();
        this.clock = clock;
        this.node = node;
        this.log = log;
        this.services = Map.copyOf(services);
        this.available = List.copyOf(plugins);
        this.startedAt = clock.instant();
        AtomicInteger n = new AtomicInteger();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, "nhc-schedule"));
        this.workers = Executors.newCachedThreadPool(r -> daemonThread(r, "nhc-check-" + n.incrementAndGet()));
        this.actions = Executors.newSingleThreadExecutor(r -> daemonThread(r, "nhc-actions"));
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * The cli's entry point for {@code nhc daemon}: loads the config, takes the run lock, starts
     * checks, endpoints and plugins, reloads on SIGHUP, and returns when the JVM is asked to stop.
     *
     * @return the exit code: 0 after a clean stop, 2 when the config is invalid, 3 when nhc cannot run here
     */
    public static int run(PlanSource source, PlanExecutor executor, String node, PrintStream err, Map<Class<?>, Object> services,
                          List<DaemonPlugin> plugins, List<RecheckTrigger> triggers) {
        Daemon d = new Daemon(source, executor, Clock.systemUTC(), node, err, services, plugins);
        triggers.forEach(d::addTrigger);
        // A thread that dies unseen (an endpoint's, the scheduler's) would leave a live process that serves nobody.
        ProcessEnd.onUncaughtException(err);
        d.fatalExit = why -> ProcessEnd.exit(err, why);
        try {
            d.start();
        } catch (ConfigException e) {
            err.println(describe(e));
            d.close();
            return SeverityPolicy.EXIT_INVALID;
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            err.println("nhc daemon: " + e.getMessage());
            d.close();
            return SeverityPolicy.EXIT_INTERNAL;
        }
        d.installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(d::close, "nhc-shutdown"));
        d.awaitStop();
        return SeverityPolicy.EXIT_OK;
    }

    /** SIGHUP reloads. SIGTERM/SIGINT take the JVM's normal path, which runs the shutdown hook. */
    @SuppressWarnings("removal")
    public void installSignalHandlers() {
        try {
            sun.misc.Signal hup = new sun.misc.Signal("HUP");
            if (sun.misc.Signal.handle(hup, sig -> workers.execute(this::reload)) == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM installs nothing over an inherited "ignore": say so rather than ignore reloads silently.
                log("SIGHUP is ignored in this process (started under nohup?): reload by restarting");
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            log("cannot handle SIGHUP here (" + e.getMessage() + "); reload by restarting");
        }
    }

    /**
     * Adds a trigger before {@link #start()}; it is started with the first plan, started again with
     * each reloaded one (it then replaces what it watched), and closed with the daemon.
     */
    public void addTrigger(RecheckTrigger t) {
        triggers.add(t);
    }

    public void start() throws ConfigException, IOException {
        Plan plan = source.load();
        DaemonSettings ds = DaemonSettings.of(plan);
        StateStore state = new StateStore(plan.settings().stateDir());
        synchronized (lock) {
            runLock = takeRunLock(plan);
            restoreVerdict(state);
            // The plan is in place before endpoints and plugins start (they read it); checks start after them,
            // so that no verdict is made before every plugin can hear of it.
            current = new Generation(plan, state, null);
            startEndpoints(ds);
            startPlugins(plan);
            for (Slot s : current.slots.values()) {
                // After a restart an every: check runs when it is due by its saved last run, not at once
                // (dcgm.diag every 6h is intrusive); until then its saved result is its answer.
                schedule(s, Duration.ZERO, true);
            }
            scheduleTick(plan.settings().interval());
        }
        startTriggers(plan);
        log("started on " + node + " with " + plan.config().file().toAbsolutePath() + " (" + plan.checks().size() + " checks, state in "
                + plan.settings().stateDir() + "); endpoints on http://" + statusAddress().getHostString() + ":" + statusAddress().getPort()
                + (verdictSocket != null ? ", verdict socket " + verdictSocket.path() : "")
                + (running.isEmpty() ? "" : "; plugins: " + String.join(", ", running.stream().map(DaemonPlugin::name).toList())));
    }

    /**
     * The node's run lock, held for the daemon's life. A one-shot run holds it for seconds: wait
     * for that, up to the config's deadline, rather than fail.
     */
    private RunLock takeRunLock(Plan plan) throws IOException {
        long until = System.nanoTime() + plan.settings().deadline().toNanos();
        String[] holder = new String[1];
        while (true) {
            Optional<RunLock> l = RunLock.tryAcquire(plan.settings().stateDir(), holder, RunLock.DAEMON);
            if (l.isPresent()) {
                return l.get();
            }
            if (System.nanoTime() - until > 0) {
                throw new IOException("another nhc holds the run lock in " + plan.settings().stateDir() + " (" + holder[0]
                        + "); is a daemon already running? Only one may write a node's state");
            }
            try {
                Thread.sleep(200); // a poll of a lock held by another process; nothing here can signal its release
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the run lock");
            }
        }
    }

    /** Serves the last verdict written before a restart until the checks have run again. */
    private void restoreVerdict(StateStore state) {
        Object saved = state.section(STATE_SECTION).get("verdict");
        VerdictJson.Restored r = VerdictJson.read(saved);
        if (saved != null && (r == null || r.checks().isEmpty())) {
            log("not serving the verdict saved in " + state.dir().resolve(STATE_SECTION + ".json")
                    + ": it is not one nhc wrote (no check result in it can be read); judging afresh");
        }
        if (r != null && !r.checks().isEmpty()) {
            verdict = policy.verdict(node, r.started(), 0, r.checks());
            restored = true;
            lastFindings = fingerprint(verdict);
            log("serving the verdict of " + r.started() + " (" + verdict.severity().label() + ") until the checks have run again");
            if (verdict.severity() == Severity.FAIL) {
                state.nodeHeld("nhc's last verdict (of " + r.started() + ") failed the node");
            }
        }
    }

    /** Loads the config again; on any problem the old config keeps running and the problem is reported. */
    public boolean reload() {
        reloads.incrementAndGet();
        Plan plan;
        DaemonSettings ds;
        String problem;
        try {
            plan = source.load();
            ds = DaemonSettings.of(plan);
        } catch (ConfigException e) {
            return rejectReload(describe(e));
        } catch (RuntimeException | StackOverflowError e) {
            // A loader bug must not kill the SIGHUP worker with a stack trace and leave the reload uncounted.
            return rejectReload("nhc could not load it (" + e + ")");
        }
        synchronized (lock) {
            if (closed) {
                return false;
            }
            if (!plan.settings().stateDir().equals(current.plan.settings().stateDir())) {
                return rejectReload("settings.state_dir changed (" + current.plan.settings().stateDir() + " -> "
                        + plan.settings().stateDir() + "): the daemon holds the run lock of the old one; restart it to move");
            }
            if (!ds.equals(settings)) {
                DaemonSettings old = settings;
                closeEndpoints();
                try {
                    startEndpoints(ds);
                } catch (IOException e) {
                    try {
                        startEndpoints(old);
                    } catch (IOException again) {
                        log("could not listen again on the old addresses either: " + again.getMessage());
                    }
                    return rejectReload(e.getMessage());
                }
            }
            for (DaemonPlugin p : running) {
                if (!p.wanted(plan)) {
                    continue; // stopped below
                }
                try {
                    p.reloaded(plan);
                } catch (IOException | RuntimeException e) {
                    log(p.name() + ": " + e.getMessage() + "; it keeps its previous settings");
                }
            }
            Duration interval = current.plan.settings().interval();
            install(plan, current.state);
            if (!interval.equals(plan.settings().interval())) {
                scheduleTick(plan.settings().interval()); // the plugins' periodic look follows settings.interval
            }
            problem = adjustPlugins(plan);
        }
        startTriggers(plan);
        reloadProblem = problem;
        log("reloaded " + plan.config().file().toAbsolutePath() + " (" + plan.checks().size() + " checks)");
        return true;
    }

    /**
     * After a reload, the plugins match the new config's sections: one whose section went is
     * closed (no Slurm actions once {@code slurm:} is removed), one whose section came is started
     * (after the new plan is in place, which it reads). Returns why a plugin could not start, or null.
     */
    private String adjustPlugins(Plan plan) {
        String problem = null;
        for (DaemonPlugin p : available) {
            boolean wanted = p.wanted(plan);
            boolean on = running.contains(p);
            if (on && !wanted) {
                running.remove(p);
                try {
                    p.close();
                } catch (RuntimeException e) {
                    log("closing " + p.name() + ": " + e.getMessage());
                }
                log(p.name() + " stopped: the config has no section for it any more");
            } else if (!on && wanted) {
                try {
                    p.start(this);
                    running.add(p);
                    log(p.name() + " started: the config now has a section for it");
                } catch (IOException | RuntimeException e) {
                    problem = "config reloaded, but " + p.name() + " could not start: " + e.getMessage();
                    log(problem);
                }
            }
        }
        Verdict v = verdict;
        if (v != null) {
            notifyPlugins(v); // a plugin just started hears of the verdict now, not at the next result
        }
        return problem;
    }

    /** (Re)starts the recheck triggers for this plan; each closes what it watched for the previous one. */
    private void startTriggers(Plan plan) {
        synchronized (triggers) {
            if (closed) {
                return; // stopped meanwhile: close() has closed them
            }
            for (RecheckTrigger t : triggers) {
                try {
                    t.start(plan, this::recheckTag);
                } catch (Exception | LinkageError e) {
                    // No events (e.g. no NVML on this host): the checks still run on their schedule.
                    log(t.getClass().getSimpleName() + " not started: " + e.getMessage() + "; its checks run on their schedule only");
                }
            }
        }
    }

    private boolean rejectReload(String why) {
        reloadFailures.incrementAndGet();
        reloadProblem = "config reload rejected, still running the previous config: " + why;
        log(reloadProblem);
        return false;
    }

    private void startEndpoints(DaemonSettings ds) throws IOException {
        NhcMetrics metrics = new NhcMetrics(this::status, this::pluginLabels, this::pluginMetrics);
        StatusServer st = new StatusServer(ds.metricsListen(), this::status, metrics, ds.token(), this::recheckAll, this::fatal);
        VerdictSocket vs = null;
        if (ds.socket() != null) {
            try {
                vs = new VerdictSocket(ds.socket(), new VerdictSocket.Handler() {
                    @Override
                    public VerdictSocket.Answer verdict(String configFile) {
                        return socketAnswer(configFile);
                    }

                    @Override
                    public VerdictSocket.Answer clear(List<String> checks) {
                        return Daemon.this.clear(checks);
                    }
                }, this::fatal);
            } catch (IOException e) {
                st.close();
                throw e;
            }
        }
        statusServer = st.start();
        verdictSocket = vs == null ? null : vs.start();
        settings = ds;
    }

    private void closeEndpoints() {
        if (verdictSocket != null) {
            verdictSocket.close();
            verdictSocket = null;
        }
        if (statusServer != null) {
            statusServer.close();
            statusServer = null;
        }
    }

    private void startPlugins(Plan plan) throws IOException {
        for (DaemonPlugin p : available) {
            if (p.wanted(plan)) {
                try {
                    p.start(this);
                } catch (IOException | RuntimeException e) {
                    running.forEach(DaemonPlugin::close);
                    running.clear();
                    throw new IOException(p.name() + ": " + e.getMessage(), e);
                }
                running.add(p);
            }
        }
    }

    /**
     * Replaces the running generation: old schedules stop, results of checks that kept their name
     * carry over. A check that kept its name, probe and interval keeps its timing (a reload does
     * not re-run an intrusive {@code every: 6h} check); a new or changed one runs at once.
     */
    private void install(Plan plan, StateStore state) {
        Generation old = current;
        Generation gen = new Generation(plan, state, old);
        Map<String, Duration> firstDelay = new LinkedHashMap<>();
        if (old != null) {
            old.retired = true;
            for (Slot s : old.slots.values()) {
                ScheduledFuture<?> f = s.next;
                if (f != null) {
                    f.cancel(false);
                }
                Slot kept = gen.slots.get(s.check.name());
                if (kept == null) {
                    continue;
                }
                if (s.last != null) {
                    kept.last = s.last;
                    kept.finishedAt = s.finishedAt;
                    kept.finishedNanos = s.finishedNanos;
                }
                kept.sameAsBefore = s.check.check().use().equals(kept.check.check().use()) && s.every.equals(kept.every);
                s.successor = kept;
                if (kept.sameAsBefore) {
                    // Its next run stays when it was due; a run still going counts as this interval's.
                    firstDelay.put(s.check.name(), f != null && !f.isDone() ? Duration.ofMillis(f.getDelay(TimeUnit.MILLISECONDS)) : s.every);
                } else if (s.runs.inFlight.get() > 0) {
                    // Changed while a run of the old one is going: the new one runs as soon as that returns.
                    s.runs.rerun.set(true);
                    firstDelay.put(s.check.name(), kept.every);
                }
            }
        }
        current = gen;
        if (old != null) {
            rebuildVerdict(gen);
        }
        for (Slot s : gen.slots.values()) {
            schedule(s, firstDelay.getOrDefault(s.check.name(), Duration.ZERO), false);
        }
    }

    private void schedule(Slot s, Duration delay) {
        schedule(s, delay, false);
    }

    /** {@code fromSaved}: the run reports the saved result of an {@code every:} check that is not due yet instead of running it. */
    private void schedule(Slot s, Duration delay, boolean fromSaved) {
        if (s.gen.retired || timer.isShutdown()) {
            return;
        }
        try {
            s.next = timer.schedule(() -> launch(s, true, fromSaved), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // closing
        }
    }

    /** The slot that now stands for {@code s}: itself, or after reloads the current one of its name (null when none). */
    private static Slot heir(Slot s, boolean forItsResult) {
        Slot t = s;
        while (t.gen.retired && t.successor != null) {
            t = t.successor;
            if (forItsResult && !t.sameAsBefore) {
                return null; // the check changed: a run of the old one is not its answer
            }
        }
        return t.gen.retired ? null : t;
    }

    /** Re-runs the checks whose probe has this tag (e.g. "gpu" on an NVML XID event). */
    public void recheckTag(String tag) {
        Generation gen = current;
        if (gen == null) {
            return;
        }
        for (Slot s : gen.slots.values()) {
            if (s.check.spec().hasTag(tag)) {
                launch(s, false);
            }
        }
    }

    @Override
    public void recheckAll() {
        Generation gen = current;
        if (gen != null) {
            gen.slots.values().forEach(s -> launch(s, false));
        }
    }

    private void launch(Slot s, boolean scheduled) {
        launch(s, scheduled, false);
    }

    private void launch(Slot s, boolean scheduled, boolean fromSaved) {
        if (s.gen.retired || workers.isShutdown()) {
            return;
        }
        Runs runs = s.runs;
        CompletableFuture<Void> stuck = runs.stuck;
        if (stuck != null && !stuck.isDone()) {
            // Its last probe still hangs (a blocked native call): another would only pile up threads.
            if (scheduled) {
                runs.skippedWhileHung.incrementAndGet();
                schedule(s, s.every);
            }
            return;
        }
        if (!runs.inFlight.compareAndSet(0, 1)) {
            // Still running (or stuck past its timeout): never two runs of one check at once.
            if (scheduled) {
                schedule(s, s.every);
                return;
            }
            // An event asked for a fresh look: run again as soon as the current run returns. The run
            // may have returned between the two lines; then this call takes the rerun over itself.
            runs.rerun.set(true);
            if (!runs.inFlight.compareAndSet(0, 1)) {
                return;
            }
            runs.rerun.set(false);
        }
        long start = System.nanoTime();
        CompletableFuture<CheckResult> run;
        try {
            run = CompletableFuture.supplyAsync(() -> runOnce(s, fromSaved), workers);
        } catch (RejectedExecutionException stopping) {
            runs.inFlight.set(0);
            return;
        }
        run.whenComplete((r, e) -> {
            if (runs.clearPending.getAndSet(false)) {
                // Still holding the slot: no run starts between the forgetting and the rerun.
                Slot now = heir(s, false);
                if (now != null) {
                    forgetAfter(now);
                }
                runs.rerun.set(true); // the check is judged afresh at once, as nhc clear said
            }
            runs.inFlight.set(0);
            if (runs.rerun.getAndSet(false)) {
                Slot now = heir(s, false); // a reload meanwhile: the recheck is for the check as it is now
                if (now != null) {
                    launch(now, false);
                }
            }
        });
        // On a copy: orTimeout completes the future it is called on, and the run itself must stay "in flight" until it returns.
        run.copy().orTimeout(s.check.timeout().plus(grace).toMillis(), TimeUnit.MILLISECONDS)
                .handle((r, e) -> {
                    record(s, r != null ? r : failed(s, start, e));
                    if (scheduled) {
                        schedule(s, nextDelay(s, start, fromSaved));
                    }
                    return null;
                });
    }

    /**
     * When a scheduled check runs next: one interval after this run started, on the monotonic clock.
     * Only after a saved result of an {@code every:} check was shown in its place (after a restart)
     * does the saved last run, a wall-clock time, say when it is due.
     */
    private Duration nextDelay(Slot s, long startNanos, boolean fromSaved) {
        if (fromSaved && s.check.every() != null) {
            Instant now = clock.instant();
            long last = s.gen.state.section("schedule").getLong("last_run." + s.check.name(), Long.MIN_VALUE);
            if (last != Long.MIN_VALUE && last <= now.toEpochMilli()) {
                Duration due = Duration.between(now, Instant.ofEpochMilli(last).plus(s.every));
                return due.compareTo(s.every) > 0 ? s.every : due;
            }
        }
        return s.every.minusNanos(System.nanoTime() - startNanos);
    }

    /**
     * The probes' services; for a check that judges the others' observations (script.js with
     * {@code runsLast}), also their latest ones: run alone, it would otherwise see none.
     */
    private Map<Class<?>, Object> servicesFor(Slot s) {
        if (!s.check.spec().runsLast()) {
            return services;
        }
        Map<String, List<Observation>> latest = new LinkedHashMap<>();
        for (Slot other : s.gen.slots.values()) {
            CheckResult r = other.last;
            if (other != s && r != null) {
                latest.put(other.check.name(), r.observations());
            }
        }
        Map<String, List<Observation>> prior = Map.copyOf(latest);
        Map<Class<?>, Object> out = new java.util.HashMap<>(services);
        out.put(PriorObservations.class, (PriorObservations) () -> prior);
        return out;
    }

    private CheckResult runOnce(Slot s, boolean fromSaved) {
        // fromSaved: the executor keeps the saved schedule, and shows the saved result of a check that is not due.
        RunRequest req = new RunRequest(s.gen.plan, node, s.gen.state, Set.of(s.check.name()), servicesFor(s), !fromSaved,
                (name, returned) -> s.runs.stuck = returned);
        Verdict v = executor.run(req);
        for (CheckResult c : v.checks()) {
            if (c.name().equals(s.check.name())) {
                return c;
            }
        }
        throw new IllegalStateException("the executor returned no result for check " + s.check.name());
    }

    /**
     * The result of a run that did not come back from the executor in time (or threw): built like
     * the executor's own (same wording, {@link SeverityPolicy#settleUndecided}: {@code on_unknown}
     * applies, {@code for:} streaks are left alone), so the daemon judges a hang as a one-shot run would.
     */
    private CheckResult failed(Slot s, long startNanos, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        long ms = (System.nanoTime() - startNanos) / 1_000_000;
        CheckStatus status;
        String why;
        Finding raw;
        if (cause instanceof TimeoutException) {
            status = CheckStatus.TIMED_OUT;
            why = "probe " + s.check.check().use() + " did not finish within " + PlanExecutor.human(s.check.timeout()) + "; abandoned";
            raw = policy.timedOut(s.check, why);
        } else {
            status = CheckStatus.ERROR;
            why = "cannot run: " + PlanExecutor.describe(cause);
            raw = policy.couldNotRun(s.check, why);
        }
        // As the executor's own: a run that saw nothing leaves the for: streaks alone, only on_unknown applies.
        List<Finding> settled = policy.settleUndecided(s.check.check(), List.of(raw), s.gen.plan.settings().onUnknown());
        return new CheckResult(s.check.name(), s.check.check().use(), s.check.spec().tags(), status, policy.ofFindings(settled), ms,
                settled, List.of(), why);
    }

    private void record(Slot run, CheckResult result) {
        // A run of a config that has since been replaced answers for the same check in the new one.
        Slot s = heir(run, true);
        if (s == null) {
            return;
        }
        s.last = result;
        s.finishedAt = clock.instant();
        s.finishedNanos = System.nanoTime();
        // What the executor wrote for this check besides its own section (saved by the executor as the probe ended).
        save(s.gen, List.of("rules." + s.check.name(), "schedule"));
        rebuildVerdict(s.gen);
    }

    private void rebuildVerdict(Generation gen) {
        Verdict v;
        synchronized (gen) {
            List<CheckResult> results = new ArrayList<>();
            Instant latest = null;
            long ms = 0;
            boolean all = true;
            for (Slot s : gen.slots.values()) {
                if (s.last != null) {
                    results.add(s.last);
                    ms = Math.max(ms, s.last.durationMs());
                    if (latest == null || s.finishedAt.isAfter(latest)) {
                        latest = s.finishedAt;
                    }
                } else {
                    all = false;
                }
            }
            if (gen.retired || current != gen || results.isEmpty()) {
                return;
            }
            if (restored && !all) {
                // Until every check has run once, the verdict restored at start is a better answer than a partial one.
                return;
            }
            restored = false;
            v = policy.verdict(node, latest, ms, results);
            verdict = v;
        }
        persist(gen);
        notifyPlugins(v);
    }

    /** (Re)starts the periodic tick at this interval, replacing the one of the previous config. */
    private void scheduleTick(Duration interval) {
        if (tick != null) {
            tick.cancel(false);
        }
        try {
            tick = timer.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // closing
        }
    }

    /** Every {@code settings.interval}: the plugins see the verdict again (Slurm re-checks a node nhc holds). */
    private void tick() {
        Verdict v = verdict;
        if (v != null) {
            notifyPlugins(v);
        }
    }

    private void notifyPlugins(Verdict v) {
        if (running.isEmpty()) {
            return;
        }
        // Plugins may block (Slurm's scontrol against a slow slurmctld): verdicts that come in meanwhile
        // replace each other here instead of queueing up without bound; the plugins get the newest.
        if (newestForPlugins.getAndSet(v) != null) {
            return;
        }
        try {
            actions.execute(this::deliverNewest);
        } catch (RejectedExecutionException stopping) {
            // closing
        }
    }

    private void deliverNewest() {
        Verdict queued = newestForPlugins.getAndSet(null);
        if (queued == null) {
            return;
        }
        // Two checks finishing together may hand their verdicts over in either order: the field is the newest.
        Verdict latest = verdict;
        Verdict v = latest != null ? latest : queued;
        List<String> now = fingerprint(v);
        boolean changed = !now.equals(lastFindings);
        lastFindings = now;
        for (DaemonPlugin p : running) {
            try {
                p.verdict(v, changed);
            } catch (RuntimeException e) {
                log(p.name() + ": " + e.getMessage());
            }
        }
    }

    /** What "the verdict changed" means to a plugin: any finding that counts, by check, entity, severity and message. */
    private static List<String> fingerprint(Verdict v) {
        List<String> out = new ArrayList<>();
        out.add(v.severity().label());
        for (Finding f : v.findings()) {
            out.add(f.check() + "|" + f.entity().label() + "|" + f.severity().label() + "|" + f.message() + "|"
                    + (f.slurmState() == null ? "" : f.slurmState().label()));
        }
        return out;
    }

    /**
     * Saves the verdict: the daemon's own section only. The whole store would also save the
     * sections of probes still running, half-changed (a cursor moved, its latch not yet set).
     */
    private void persist(Generation gen) {
        Verdict v = verdict;
        if (v == null) {
            return;
        }
        synchronized (gen.stateChanges) {
            gen.state.section(STATE_SECTION).put("verdict", JsonReport.toMap(v, List.of()));
            save(gen, List.of(STATE_SECTION));
        }
    }

    /** A full disk must not take the verdict away: the write failure is reported and the last verdict served. */
    private void save(Generation gen, List<String> sections) {
        try {
            synchronized (gen.stateChanges) {
                gen.state.flush(sections);
            }
            if (stateProblem != null) {
                log("writing state to " + gen.state.dir() + " works again");
            }
            stateProblem = null;
        } catch (IOException | RuntimeException e) {
            stateWriteErrors.incrementAndGet();
            String p = "cannot write state to " + gen.state.dir() + ": " + e.getMessage() + " (still serving the latest verdict from memory)";
            if (!p.equals(stateProblem)) {
                log(p);
            }
            stateProblem = p;
        }
    }

    /** The verdict socket's answer for bin/nhc-slurm, asked with the config file it would run. */
    private VerdictSocket.Answer socketAnswer(String configFile) {
        Generation gen = current;
        Verdict v = verdict;
        if (gen == null || v == null) {
            return VerdictSocket.Answer.unavailable("no verdict yet");
        }
        String mine = String.valueOf(gen.plan.config().file());
        if (configFile != null && !configFile.isEmpty() && !sameFile(configFile, mine)) {
            return VerdictSocket.Answer.unavailable("the daemon runs " + mine + ", not " + configFile);
        }
        String stale = stale(gen);
        if (stale != null) {
            return VerdictSocket.Answer.unavailable(stale);
        }
        if (running.stream().noneMatch(DaemonPlugin::actsForHealthProgram)) {
            return VerdictSocket.Answer.unavailable("the daemon does not act on the scheduler for this node (" + mine
                    + " has no section for it, such as slurm:)");
        }
        List<String> notes = new ArrayList<>();
        for (DaemonPlugin p : running) {
            notes.addAll(p.problems());
        }
        return VerdictSocket.Answer.of(policy.exitCode(v.severity(), false), v, notes);
    }

    /**
     * {@code nhc clear CHECK...} while the daemon holds the state: forgets what those checks
     * remember (latched events, counters, {@code for:} streaks, the last scheduled result) and runs
     * them again at once. A run of the check that is going now read the old state and writes it
     * back when it ends (a latch, a cursor): the clear then happens when that run ends, before the
     * next one, and the answer says so; likewise when the check's probe still hangs.
     */
    VerdictSocket.Answer clear(List<String> checks) {
        Generation gen = current;
        if (gen == null) {
            return VerdictSocket.Answer.unavailable("the daemon is starting");
        }
        for (String name : checks) {
            if (!gen.slots.containsKey(name)) {
                return VerdictSocket.Answer.text(SeverityPolicy.EXIT_INVALID, "no check " + name + " in " + gen.plan.config().file() + "\n");
            }
        }
        StringBuilder out = new StringBuilder();
        List<Slot> now = new ArrayList<>();
        for (String name : checks) {
            Slot s = gen.slots.get(name);
            Runs runs = s.runs;
            runs.clearPending.set(true);
            if (!runs.inFlight.compareAndSet(0, 1)) {
                // The running one forgets when it ends (its whenComplete), then runs the check again.
                runs.rerun.set(true);
                out.append(name).append(" is running now: cleared when that run ends, then run again\n");
                continue;
            }
            // Holding the slot ourselves: no run can start while we forget.
            try {
                if (!runs.clearPending.getAndSet(false)) {
                    out.append("cleared ").append(name).append(" (its run that just ended did; the daemon runs it again now)\n");
                    now.add(s);
                    continue;
                }
                CompletableFuture<Void> stuck = runs.stuck;
                if (stuck != null && !stuck.isDone()) {
                    // The hung probe writes its state when (if) it returns: forget after that.
                    stuck.whenComplete((x, e) -> {
                        Slot heir = heir(s, false);
                        if (heir != null) {
                            forgetAfter(heir);
                            launch(heir, false);
                        }
                    });
                    out.append(name).append(": its probe still hangs; cleared when it returns, then run again\n");
                    continue;
                }
                String problem = forget(gen, name);
                out.append("cleared ").append(name).append(" (the daemon runs it again now)\n");
                if (problem != null) {
                    out.append(problem).append('\n');
                }
                now.add(s);
            } finally {
                runs.inFlight.set(0);
            }
        }
        log("cleared " + String.join(", ", checks) + " on request");
        for (Slot s : now) {
            launch(s, false);
        }
        return VerdictSocket.Answer.text(SeverityPolicy.EXIT_OK, out.toString());
    }

    /** Forgets what a check remembers and saves that; returns why it could not be saved, or null. */
    private String forget(Generation gen, String name) {
        Slot s = gen.slots.get(name);
        synchronized (gen.stateChanges) {
            s.check.probe().clear(gen.state.section("check." + name));
            gen.state.section("rules." + name).clear();
            gen.state.section("schedule").remove("last_run." + name);
            gen.state.section("schedule").remove("last_findings." + name);
            try {
                gen.state.flush(List.of("check." + name, "rules." + name, "schedule"));
                return null;
            } catch (IOException e) {
                return "could not save state in " + gen.state.dir() + ": " + e.getMessage();
            }
        }
    }

    /** A clear that waited for a run to end: the answer has gone, so a failure to save goes to the log. */
    private void forgetAfter(Slot s) {
        String problem = forget(s.gen, s.check.name());
        log("cleared " + s.check.name() + " after its running probe ended" + (problem == null ? "" : "; " + problem));
    }

    /**
     * Why the verdict is stale (a check's latest result older than two of its intervals, or none
     * yet), or null. A check whose probe is still hung is not run again, so its timeout result
     * never gets younger; it is still the current answer (the probe hangs now), not a stale one.
     */
    private String stale(Generation gen) {
        return stale(gen, true);
    }

    /** {@code notYet}: a check that has not run yet counts as stale (not for /healthz: every check starts so). */
    private String stale(Generation gen, boolean notYet) {
        long now = System.nanoTime();
        for (Slot s : gen.slots.values()) {
            if (s.finishedAt == null) {
                if (notYet) {
                    return "check " + s.check.name() + " has not run yet";
                }
                continue;
            }
            if (stillHung(s)) {
                continue;
            }
            Duration age = Duration.ofNanos(now - s.finishedNanos);
            if (age.compareTo(s.every.multipliedBy(2)) > 0) {
                return "check " + s.check.name() + " last finished " + age.toSeconds() + "s ago, more than two of its intervals";
            }
        }
        return null;
    }

    /** The slot's latest result is its timeout and the run it timed out is still stuck. */
    private static boolean stillHung(Slot s) {
        CheckResult last = s.last;
        if (last == null || last.status() != CheckStatus.TIMED_OUT) {
            return false;
        }
        CompletableFuture<Void> stuck = s.runs.stuck;
        return (stuck != null && !stuck.isDone()) || s.runs.inFlight.get() > 0;
    }

    private static boolean sameFile(String a, String b) {
        try {
            return java.nio.file.Files.isSameFile(java.nio.file.Path.of(a), java.nio.file.Path.of(b));
        } catch (IOException | RuntimeException e) {
            return a.equals(b);
        }
    }

    @Override
    public Verdict verdict() {
        return verdict;
    }

    @Override
    public Plan plan() {
        return current.plan;
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public StateStore state() {
        return current.state;
    }

    @Override
    public void log(String line) {
        log.println("nhc daemon: " + line);
    }

    @Override
    public void fatal(String why) {
        Consumer<String> exit = fatalExit;
        if (exit != null) {
            exit.accept(why);
        } else {
            log(why);
        }
    }

    private Map<String, String> pluginLabels() {
        Map<String, String> out = new LinkedHashMap<>();
        running.forEach(p -> out.putAll(p.metricLabels()));
        return out;
    }

    private void pluginMetrics(MetricsOut out) {
        for (DaemonPlugin p : running) {
            try {
                p.metrics(out);
            } catch (RuntimeException e) {
                log(p.name() + ": metrics: " + e.getMessage());
            }
        }
    }

    public DaemonStatus status() {
        Generation gen = current;
        Map<String, Instant> finished = new LinkedHashMap<>();
        if (gen != null) {
            for (Slot s : gen.slots.values()) {
                if (s.finishedAt != null) {
                    finished.put(s.check.name(), s.finishedAt);
                }
            }
        }
        List<String> problems = new ArrayList<>();
        if (stateProblem != null) {
            problems.add(stateProblem);
        }
        if (reloadProblem != null) {
            problems.add(reloadProblem);
        }
        String behind = gen == null ? null : stale(gen, false);
        if (behind != null) {
            problems.add("the schedule is behind: " + behind);
        }
        List<String> unavailable = new ArrayList<>();
        for (DaemonPlugin p : running) {
            problems.addAll(p.problems());
            unavailable.addAll(p.unavailable());
        }
        problems.addAll(unavailable);
        return new DaemonStatus(verdict, finished, startedAt, problems, stateWriteErrors.get(), reloads.get(), reloadFailures.get(),
                unavailable);
    }

    /** Where the status endpoints actually listen (port 0 in tests picks a free one). */
    public java.net.InetSocketAddress statusAddress() {
        synchronized (lock) {
            return statusServer == null ? null : statusServer.address();
        }
    }

    public void awaitStop() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            Generation gen = current;
            if (gen != null) {
                gen.retired = true;
            }
            if (tick != null) {
                tick.cancel(false);
            }
            timer.shutdownNow();
            workers.shutdownNow();
            closeEndpoints();
        }
        synchronized (triggers) {
            for (RecheckTrigger t : triggers) {
                try {
                    t.close();
                } catch (RuntimeException e) {
                    log("closing " + t.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
        }
        actions.shutdown();
        try {
            actions.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (DaemonPlugin p : running) {
            try {
                p.close();
            } catch (RuntimeException e) {
                log("closing " + p.name() + ": " + e.getMessage());
            }
        }
        running.clear();
        if (runLock != null) {
            try {
                runLock.close();
            } catch (IOException e) {
                log("releasing the run lock: " + e.getMessage());
            }
        }
        stopped.countDown();
    }

    static String describe(ConfigException e) {
        StringBuilder b = new StringBuilder();
        for (ConfigProblem p : e.problems()) {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(p);
        }
        return b.length() == 0 ? String.valueOf(e.getMessage()) : b.toString();
    }

    /** For tests: how many scheduled runs of this check were not started because its probe still hangs. */
    int skippedWhileHung(String check) {
        return current.slots.get(check).runs.skippedWhileHung.get();
    }

    /** For tests: the plugins that were started. */
    List<DaemonPlugin> runningPlugins() {
        return List.copyOf(running);
    }
}
