package dev.nhc.dstack;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigProblem;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * {@code nhc daemon}: every check on its own schedule ({@code every:}, else {@code settings.interval}),
 * each run on its own thread so that a slow check never delays another, the latest verdict kept in
 * memory (for the shim proxy, /v1/verdict and /metrics) and in the state store. SIGHUP reloads the
 * config (an invalid one is reported and the old one kept), SIGTERM stops cleanly.
 *
 * <p>A check whose run does not return within its timeout (plus a grace for the runner's own
 * abandonment) gets a TIMED_OUT result — FAIL for GPU probes, UNKNOWN otherwise, as DESIGN says — and is
 * not started again while that run is still stuck, so hung native calls cannot pile up threads.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);
    static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);
    private static volatile Duration grace = DEFAULT_GRACE;
    static final String STATE_SECTION = "daemon";

    /** Loads and validates the config file (the cli passes its ConfigLoader). */
    @FunctionalInterface
    public interface ConfigSource {
        Config load() throws ConfigException;
    }

    private final ConfigSource source;
    private final CheckRunner runner;
    private final Clock clock;
    private final String hostname;
    private final PrintStream log;
    private final ScheduledExecutorService timer;
    private final ExecutorService workers;
    private final ShimProxy.Stats proxyStats = new ShimProxy.Stats();
    private final Instant startedAt;
    private final AtomicLong stateWriteErrors = new AtomicLong();
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong reloadFailures = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<RecheckTrigger> triggers = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    private volatile Generation current;
    private volatile Verdict verdict;
    private volatile String stateProblem;
    private volatile String reloadProblem;
    private volatile ShimProxy proxy;
    private StatusServer statusServer;
    private DstackSettings dstack;
    private boolean closed;

    /** Everything that belongs to one loaded config; a reload replaces it whole. */
    private final class Generation {
        final Config config;
        final StateStore state;
        final Map<String, Slot> slots = new LinkedHashMap<>();
        volatile boolean retired;

        Generation(Config config, StateStore state) {
            this.config = config;
            this.state = state;
            for (CheckConfig c : config.checks()) {
                slots.put(c.name(), new Slot(this, c));
            }
        }
    }

    /** One check's schedule and latest result. */
    private final class Slot {
        final Generation gen;
        final CheckConfig check;
        final Duration every;
        final Duration timeout;
        final AtomicInteger inFlight = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicBoolean rerun = new java.util.concurrent.atomic.AtomicBoolean();
        volatile ScheduledFuture<?> next;
        volatile CheckResult last;
        volatile Instant finishedAt;

        Slot(Generation gen, CheckConfig check) {
            this.gen = gen;
            this.check = check;
            this.every = check.every() != null ? check.every() : gen.config.settings().interval();
            this.timeout = check.timeoutOr(gen.config.settings().checkTimeout());
        }
    }

    /** How long past a check's timeout the daemon waits for the runner's own abandonment; short in tests. */
    static void graceForTests(Duration d) {
        grace = d;
    }

    public Daemon(ConfigSource source, CheckRunner runner, Clock clock, String hostname, PrintStream log) {
        this.source = source;
        this.runner = runner;
        this.clock = clock;
        this.hostname = hostname;
        this.log = log;
        this.startedAt = clock.instant();
        AtomicInteger n = new AtomicInteger();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, "nhc-schedule"));
        this.workers = Executors.newCachedThreadPool(r -> daemonThread(r, "nhc-check-" + n.incrementAndGet()));
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * The cli's entry point for {@code nhc daemon}: loads the config, starts checks and endpoints,
     * reloads on SIGHUP, and returns when the JVM is asked to stop (SIGTERM, SIGINT).
     *
     * @return the exit code: 0 after a clean stop, 2 when the config is invalid, 3 when an endpoint cannot listen
     */
    public static int run(ConfigSource source, CheckRunner runner, String hostname, PrintStream err) {
        return run(source, runner, hostname, err, List.of());
    }

    /** As {@link #run(ConfigSource, CheckRunner, String, PrintStream)}, with triggers (NVML XID events) that re-run checks at once. */
    public static int run(ConfigSource source, CheckRunner runner, String hostname, PrintStream err, List<RecheckTrigger> triggers) {
        Daemon d = new Daemon(source, runner, Clock.systemUTC(), hostname, err);
        triggers.forEach(d::addTrigger);
        try {
            d.start();
        } catch (ConfigException e) {
            err.println(describe(e));
            d.close();
            return 2;
        } catch (IOException | IllegalArgumentException e) {
            err.println("nhc daemon: " + e.getMessage());
            d.close();
            return 3;
        }
        d.installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(d::close, "nhc-shutdown"));
        d.awaitStop();
        return 0;
    }

    /** SIGHUP reloads. SIGTERM/SIGINT take the JVM's normal path, which runs the shutdown hook. */
    @SuppressWarnings("removal")
    public void installSignalHandlers() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> workers.execute(this::reload));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            log.println("nhc daemon: cannot handle SIGHUP here (" + e.getMessage() + "); reload by restarting");
        }
    }

    /** Adds a trigger before {@link #start()}; it is started with the first config and closed with the daemon. */
    public void addTrigger(RecheckTrigger t) {
        triggers.add(t);
    }

    public void start() throws ConfigException, IOException {
        Config config = source.load();
        DstackSettings ds = DstackSettings.of(config);
        synchronized (lock) {
            startEndpoints(ds, config);
            install(config);
        }
        for (RecheckTrigger t : triggers) {
            try {
                t.start(config, this::recheck);
            } catch (Exception | LinkageError e) {
                // No events (e.g. no NVML on this host): the checks still run on their schedule.
                log.println("nhc daemon: " + t.getClass().getSimpleName() + " not started: " + e.getMessage()
                        + "; its checks run on their schedule only");
            }
        }
    }

    /** Loads the config again; on any problem the old config keeps running and the problem is reported. */
    public boolean reload() {
        reloads.incrementAndGet();
        Config config;
        DstackSettings ds;
        try {
            config = source.load();
            ds = DstackSettings.of(config);
        } catch (ConfigException e) {
            return rejectReload(describe(e));
        } catch (IllegalArgumentException e) {
            return rejectReload(e.getMessage());
        }
        synchronized (lock) {
            if (closed) {
                return false;
            }
            if (!ds.equals(dstack)) {
                DstackSettings oldSettings = dstack;
                closeEndpoints();
                try {
                    startEndpoints(ds, config);
                } catch (IOException e) {
                    try {
                        startEndpoints(oldSettings, current.config);
                    } catch (IOException again) {
                        log.println("nhc daemon: could not listen again on the old addresses either: " + again.getMessage());
                    }
                    return rejectReload(e.getMessage());
                }
            }
            install(config);
        }
        reloadProblem = null;
        log.println("nhc daemon: reloaded " + config.file() + " (" + config.checks().size() + " checks)");
        return true;
    }

    private boolean rejectReload(String why) {
        reloadFailures.incrementAndGet();
        reloadProblem = "config reload rejected, still running the previous config: " + why;
        log.println("nhc daemon: " + reloadProblem);
        return false;
    }

    private void startEndpoints(DstackSettings ds, Config config) throws IOException {
        NhcMetrics metrics = new NhcMetrics(this::status, ds.proxy() ? proxyStats : null, ds.labels());
        StatusServer st = new StatusServer(ds.metricsListen(), this::status, metrics, ds.token(), () -> recheck(c -> true));
        ShimProxy px = null;
        if (ds.proxy()) {
            try {
                px = new ShimProxy(ds.listen(), ds.shim(), ds.proxyThreads(), ds.shimTimeout(), this::verdict,
                        () -> current.config.settings().onUnknown(), proxyStats);
            } catch (IOException e) {
                st.close();
                throw e;
            }
        }
        statusServer = st.start();
        proxy = px == null ? null : px.start();
        dstack = ds;
    }

    private void closeEndpoints() {
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
        if (statusServer != null) {
            statusServer.close();
            statusServer = null;
        }
    }

    /** Replaces the running generation: old schedules stop, results of checks that kept their name carry over. */
    private void install(Config config) {
        Generation old = current;
        Generation gen = new Generation(config, old != null && old.config.settings().stateDir().equals(config.settings().stateDir())
                ? old.state : new StateStore(config.settings().stateDir()));
        if (old != null) {
            old.retired = true;
            for (Slot s : old.slots.values()) {
                ScheduledFuture<?> f = s.next;
                if (f != null) {
                    f.cancel(false);
                }
                Slot kept = gen.slots.get(s.check.name());
                if (kept != null && s.last != null) {
                    kept.last = s.last;
                    kept.finishedAt = s.finishedAt;
                }
            }
        }
        current = gen;
        rebuildVerdict(gen);
        for (Slot s : gen.slots.values()) {
            schedule(s, Duration.ZERO);
        }
    }

    private void schedule(Slot s, Duration delay) {
        if (s.gen.retired || timer.isShutdown()) {
            return;
        }
        try {
            s.next = timer.schedule(() -> launch(s, true), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // closing
        }
    }

    /** Runs the checks that match now (an XID event re-evaluates the GPU checks), outside their schedule. */
    public void recheck(Predicate<CheckConfig> which) {
        Generation gen = current;
        if (gen == null) {
            return;
        }
        for (Slot s : gen.slots.values()) {
            if (which.test(s.check)) {
                launch(s, false);
            }
        }
    }

    /** Re-evaluates the GPU checks at once; for the NVML event watcher (a fatal XID must show within a second). */
    public void recheckGpu() {
        recheck(RecheckTrigger::gpuCheck);
    }

    private void launch(Slot s, boolean scheduled) {
        if (s.gen.retired || workers.isShutdown()) {
            return;
        }
        if (!s.inFlight.compareAndSet(0, 1)) {
            // Still running (or stuck past its timeout): never two runs of one check at once.
            if (scheduled) {
                schedule(s, s.every);
                return;
            }
            // An event asked for a fresh look: run again as soon as the current run returns. The run
            // may have returned between the two lines; then this call takes the rerun over itself.
            s.rerun.set(true);
            if (!s.inFlight.compareAndSet(0, 1)) {
                return;
            }
            s.rerun.set(false);
        }
        Instant start = clock.instant();
        CompletableFuture<CheckResult> run;
        try {
            run = CompletableFuture.supplyAsync(() -> runOnce(s), workers);
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            s.inFlight.set(0);
            return;
        }
        run.whenComplete((r, e) -> {
            s.inFlight.set(0);
            if (s.rerun.getAndSet(false)) {
                launch(s, false);
            }
        });
        // On a copy: orTimeout completes the future it is called on, and the run itself must stay "in flight" until it returns.
        run.copy().orTimeout(s.timeout.plus(grace).toMillis(), TimeUnit.MILLISECONDS)
                .handle((r, e) -> {
                    CheckResult result = r != null ? r : failed(s, start, e);
                    record(s, result);
                    if (scheduled) {
                        Duration elapsed = Duration.between(start, clock.instant());
                        schedule(s, s.every.minus(elapsed));
                    }
                    return null;
                });
    }

    private CheckResult runOnce(Slot s) {
        try {
            return runner.run(s.gen.config, s.check, s.gen.state);
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }

    private CheckResult failed(Slot s, Instant start, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        long ms = Duration.between(start, clock.instant()).toMillis();
        boolean gpu = s.check.use() != null && s.check.use().startsWith("gpu");
        if (cause instanceof TimeoutException) {
            Severity sev = gpu ? Severity.FAIL : Severity.UNKNOWN;
            String msg = "did not finish within " + s.timeout.toSeconds() + "s and was abandoned";
            return new CheckResult(s.check.name(), s.check.use(), CheckStatus.TIMED_OUT, sev, ms,
                    List.of(new Finding(s.check.name(), hostname, sev, msg, gpu ? Remedy.RESET_GPU : Remedy.NONE, null, Map.of())),
                    List.of(), msg);
        }
        String msg = "could not run: " + (cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName());
        return new CheckResult(s.check.name(), s.check.use(), CheckStatus.ERROR, Severity.UNKNOWN, ms,
                List.of(new Finding(s.check.name(), hostname, Severity.UNKNOWN, msg, Remedy.NONE, null, Map.of())), List.of(), msg);
    }

    private void record(Slot s, CheckResult result) {
        if (s.gen.retired) {
            return; // a run of a config that has since been replaced
        }
        s.last = result;
        s.finishedAt = clock.instant();
        rebuildVerdict(s.gen);
        persist(s.gen);
    }

    private void rebuildVerdict(Generation gen) {
        synchronized (gen) {
            List<CheckResult> results = new ArrayList<>();
            Instant latest = null;
            long ms = 0;
            for (Slot s : gen.slots.values()) {
                if (s.last != null) {
                    results.add(s.last);
                    ms = Math.max(ms, s.last.durationMs());
                    if (latest == null || s.finishedAt.isAfter(latest)) {
                        latest = s.finishedAt;
                    }
                }
            }
            if (!gen.retired && current == gen) {
                verdict = results.isEmpty() ? null : new Verdict(hostname, latest, ms, results);
            }
        }
    }

    /** A full disk must not take the verdict away: the write failure is reported and the last verdict served. */
    private void persist(Generation gen) {
        Verdict v = verdict;
        if (v == null) {
            return;
        }
        try {
            synchronized (gen.state) {
                StateSection section = gen.state.section(STATE_SECTION);
                section.put("verdict", JsonReport.toMap(v, List.of()));
                gen.state.flush();
            }
            if (stateProblem != null) {
                log.println("nhc daemon: writing state to " + gen.state.dir() + " works again");
            }
            stateProblem = null;
        } catch (IOException | RuntimeException e) {
            stateWriteErrors.incrementAndGet();
            String p = "cannot write state to " + gen.state.dir() + ": " + e.getMessage() + " (still serving the latest verdict from memory)";
            if (!p.equals(stateProblem)) {
                log.println("nhc daemon: " + p);
            }
            stateProblem = p;
        }
    }

    /** The latest verdict, or null before the first check finished. Never runs a check. */
    public Verdict verdict() {
        return verdict;
    }

    public Config config() {
        return current.config;
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
        ShimProxy px = proxy;
        List<String> unavailable = px == null ? List.of() : px.problems();
        problems.addAll(unavailable);
        return new DaemonStatus(verdict, finished, startedAt, problems, stateWriteErrors.get(), reloads.get(), reloadFailures.get(),
                unavailable);
    }

    /** Where the proxy and the status endpoints actually listen (port 0 in tests picks a free one). */
    public java.net.InetSocketAddress proxyAddress() {
        synchronized (lock) {
            return proxy == null ? null : proxy.address();
        }
    }

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
            timer.shutdownNow();
            workers.shutdownNow();
            closeEndpoints();
        }
        for (RecheckTrigger t : triggers) {
            try {
                t.close();
            } catch (RuntimeException e) {
                log.println("nhc daemon: closing " + t.getClass().getSimpleName() + ": " + e.getMessage());
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
}
