package dev.nhc.daemon;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.run.RunLock;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code nhc daemon}: the checks on their schedules ({@link CheckScheduler}, each check's result
 * made by its {@link dev.nhc.engine.check.CheckRun} as in a one-shot run), the latest verdict kept
 * ({@link LatestVerdict}) and served on the endpoints ({@link Endpoints}), and handed to the
 * plugins ({@link PluginHost}: Slurm's action, dstack's proxy) whenever it is rebuilt. This class
 * puts them together and runs their life: start, SIGHUP's reload (an invalid config is reported and
 * the old one kept), {@code nhc clear} through the socket, status, and a clean stop on SIGTERM.
 *
 * <p>The daemon holds the node's run lock for its whole life: it and its plugins are the only
 * writers of the state directory and of Slurm's view of the node, and a one-shot run started
 * meanwhile (slurmd's HealthCheckProgram) steps aside. Its state store is closed before the lock
 * is given up, so a probe abandoned at its time limit that returns later writes nothing.
 */
public final class Daemon implements DaemonContext, AutoCloseable {
    /** Loads, validates and plans the config file. */
    @FunctionalInterface
    public interface PlanSource {
        Plan load() throws ConfigException;
    }

    private final PlanSource source;
    private final SeverityPolicy policy;
    /** Wall-clock time: only for what is shown and saved; every schedule, deadline and age is System.nanoTime's. */
    private final Clock clock;
    private final String node;
    /** The kernel's full host name, which host patterns with a dot are matched against as in nhc run; null: the node's name. */
    volatile String hostName;
    private final PrintStream log;
    private final Map<Class<?>, Object> services;
    private final Instant startedAt;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong reloadFailures = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Triggers triggers = new Triggers(this::log);
    private final PluginHost plugins;
    private final SocketAnswers answers;
    private final Endpoints endpoints;

    private final Object lock = new Object();
    private RunLock runLock;
    private StateStore store;
    private StateSaver saver;
    private volatile LatestVerdict verdicts;
    private volatile CheckScheduler scheduler;
    private ScheduledFuture<?> tick;
    private volatile String reloadProblem;
    private volatile boolean closed;
    /** What {@link #fatal} does in {@code nhc daemon}: exit so that systemd restarts it; null (tests): log only. */
    private volatile Consumer<String> fatalExit;

    /**
     * @param services what probes get through ProbeContext#service (e.g. the NVML XID event queue)
     * @param plugins  every plugin on the class path; those the plan wants are started
     */
    public Daemon(PlanSource source, SeverityPolicy policy, Clock clock, String node, PrintStream log, Map<Class<?>, Object> services,
                  List<DaemonPlugin> plugins) {
        this.source = source;
        this.policy = policy;
        this.clock = clock;
        this.node = node;
        this.log = log;
        this.services = Map.copyOf(services);
        this.startedAt = clock.instant();
        this.plugins = new PluginHost(plugins, this::verdict, this::log);
        NhcMetrics metrics = new NhcMetrics(policy, this::status, this.plugins::labels, this.plugins::metrics);
        this.answers = new SocketAnswers(() -> scheduler, this::verdict, this.plugins, this::log);
        this.endpoints = new Endpoints(this::status, metrics, this::recheckAll, answers, this::fatal);
    }

    /**
     * The cli's entry point for {@code nhc daemon}: loads the config, takes the run lock, starts
     * checks, endpoints and plugins, reloads on SIGHUP, and returns when the JVM is asked to stop.
     *
     * @return the exit code: 0 after a clean stop, 2 when the config is invalid, 3 when nhc cannot run here
     */
    public static int run(PlanSource source, SeverityPolicy policy, String node, String hostName, PrintStream err,
                          Map<Class<?>, Object> services, List<DaemonPlugin> plugins, List<RecheckTrigger> triggers) {
        Daemon d = new Daemon(source, policy, Clock.systemUTC(), node, err, services, plugins);
        d.hostName = hostName;
        triggers.forEach(d::addTrigger);
        // A thread that dies unseen (an endpoint's, the scheduler's) would leave a live process that serves nobody.
        ProcessEnd.onUncaughtException(err);
        d.fatalExit = why -> ProcessEnd.exit(err, why);
        try {
            d.start();
        } catch (ConfigException e) {
            err.println(e.oneLine());
            d.close();
            return ExitCodes.INVALID;
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            err.println("nhc daemon: " + e.getMessage());
            d.close();
            return ExitCodes.INTERNAL;
        }
        HangupSignal.reloads(() -> d.scheduler.execute(d::reload), d::log);
        Runtime.getRuntime().addShutdownHook(new Thread(d::close, "nhc-shutdown"));
        d.awaitStop();
        return ExitCodes.OK;
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
        synchronized (lock) {
            runLock = RunLock.acquireWaiting(plan.settings().stateDir(), plan.settings().deadline(), RunLock.DAEMON);
            store = new StateStore(plan.settings().stateDir());
            saver = new StateSaver(store, this::log);
            verdicts = new LatestVerdict(policy, node, store, saver, this::log);
            Verdict restored = verdicts.restore();
            if (restored != null) {
                plugins.heard(restored);
            }
            scheduler = new CheckScheduler(plan, store, policy, clock, node, hostName, services, new CheckScheduler.Listener() {
                @Override
                public void changed(ScheduledCheck finished) {
                    rebuild(finished);
                }

                @Override
                public void log(String line) {
                    Daemon.this.log(line);
                }
            });
            // Endpoints and plugins read the plan: it is in place before they start, and the checks start after
            // them, so that no verdict is made before every plugin can hear of it.
            endpoints.open(ds);
            plugins.start(plan, this);
            scheduler.start();
            scheduleTick(plan.settings().interval());
        }
        triggers.start(plan, this::recheckTag);
        InetSocketAddress at = endpoints.address();
        log("started on " + node + " with " + plan.config().file().toAbsolutePath() + " (" + plan.checks().size() + " checks, state in "
                + plan.settings().stateDir() + "); endpoints on http://" + at.getHostString() + ":" + at.getPort()
                + (endpoints.socket() != null ? ", verdict socket " + endpoints.socket() : "")
                + (plugins.names().isEmpty() ? "" : "; plugins: " + String.join(", ", plugins.names())));
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
            return rejectReload(e.oneLine());
        } catch (RuntimeException | StackOverflowError e) {
            // A loader bug must not kill the SIGHUP worker with a stack trace and leave the reload uncounted.
            return rejectReload("nhc could not load it (" + e + ")");
        }
        synchronized (lock) {
            if (closed) {
                return false;
            }
            Plan running = scheduler.plan();
            if (!plan.settings().stateDir().equals(running.settings().stateDir())) {
                return rejectReload("settings.state_dir changed (" + running.settings().stateDir() + " -> "
                        + plan.settings().stateDir() + "): the daemon holds the run lock of the old one; restart it to move");
            }
            try {
                endpoints.reopen(ds, this::log);
            } catch (IOException e) {
                return rejectReload(e.getMessage());
            }
            plugins.reloaded(plan);
            scheduler.install(plan);
            if (!running.settings().interval().equals(plan.settings().interval())) {
                scheduleTick(plan.settings().interval()); // the plugins' periodic look follows settings.interval
            }
            problem = plugins.adjust(plan, this);
            Verdict v = verdicts.get();
            if (v != null) {
                plugins.deliver(v); // a plugin just started hears of the verdict now, not at the next result
            }
        }
        triggers.start(plan, this::recheckTag);
        reloadProblem = problem;
        log("reloaded " + plan.config().file().toAbsolutePath() + " (" + plan.checks().size() + " checks)");
        return true;
    }

    private boolean rejectReload(String why) {
        reloadFailures.incrementAndGet();
        reloadProblem = "config reload rejected, still running the previous config: " + why;
        log(reloadProblem);
        return false;
    }

    /** A check's result came in (null: a reload changed the checks): the verdict again, saved, and to the plugins. */
    private void rebuild(ScheduledCheck finished) {
        CheckScheduler s = scheduler;
        if (closed || s == null) {
            return;
        }
        if (finished != null) {
            saver.save(finished.unit.state().judgedSections()); // the probe's own section was saved as the probe ended
        }
        Verdict v = verdicts.rebuild(s.checks().values());
        if (v != null) {
            plugins.deliver(v);
        }
    }

    /** (Re)starts the periodic tick at this interval: the plugins see the verdict again (Slurm re-checks a node nhc holds). */
    private void scheduleTick(Duration interval) {
        if (tick != null) {
            tick.cancel(false);
        }
        tick = scheduler.every(interval, () -> {
            Verdict v = verdicts.get();
            if (v != null) {
                plugins.deliver(v);
            }
        });
    }

    /** Re-runs the checks whose probe has this tag (e.g. "gpu" on an NVML XID event). */
    public void recheckTag(String tag) {
        CheckScheduler s = scheduler;
        if (s != null) {
            s.recheckTag(tag);
        }
    }

    @Override
    public void recheckAll() {
        CheckScheduler s = scheduler;
        if (s != null) {
            s.recheckAll();
        }
    }

    /** {@code nhc clear} as the verdict socket does it (for tests). */
    VerdictSocket.Answer clear(List<String> checks) {
        return answers.clear(checks);
    }

    @Override
    public Verdict verdict() {
        LatestVerdict v = verdicts;
        return v == null ? null : v.get();
    }

    @Override
    public Plan plan() {
        return scheduler.plan();
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public StateStore state() {
        return store;
    }

    @Override
    public SeverityPolicy policy() {
        return policy;
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

    public DaemonStatus status() {
        CheckScheduler s = scheduler;
        List<String> problems = new ArrayList<>();
        StateSaver sv = saver;
        if (sv != null && sv.problem() != null) {
            problems.add(sv.problem());
        }
        if (reloadProblem != null) {
            problems.add(reloadProblem);
        }
        String behind = s == null ? null : s.behind(false);
        if (behind != null) {
            problems.add("the schedule is behind: " + behind);
        }
        List<String> unavailable = plugins.unavailable();
        problems.addAll(plugins.problems());
        problems.addAll(unavailable);
        return new DaemonStatus(verdict(), s == null ? Map.of() : s.finishedAt(), startedAt, problems, sv == null ? 0 : sv.errors(), reloads.get(), reloadFailures.get(),
                unavailable);
    }

    /** Where the status endpoints actually listen (port 0 in tests picks a free one). */
    public InetSocketAddress statusAddress() {
        return endpoints.address();
    }

    public void awaitStop() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops checks, endpoints, triggers and plugins, then the state store, and only then gives up
     * the run lock: after that another nhc may write the state.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (tick != null) {
                tick.cancel(false);
            }
            if (scheduler != null) {
                scheduler.close();
            }
            endpoints.close();
        }
        triggers.close();
        plugins.close();
        if (store != null) {
            store.close();
        }
        if (runLock != null) {
            try {
                runLock.close();
            } catch (IOException e) {
                log("releasing the run lock: " + e.getMessage());
            }
        }
        stopped.countDown();
    }

    /** For tests: how many scheduled runs of this check were not started because its probe still hangs. */
    int skippedWhileHung(String check) {
        return scheduler.checks().get(check).skippedWhileHung.get();
    }

    /** For tests: whether the check's last probe still hangs. */
    boolean hung(String check) {
        return scheduler.checks().get(check).unit.hung();
    }

    /** For tests: the plugins that were started. */
    List<DaemonPlugin> runningPlugins() {
        return plugins.running();
    }
}
