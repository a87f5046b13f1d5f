package dev.nhc.daemon;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.daemon.http.FrontLimits;
import dev.nhc.daemon.http.HttpAnswer;
import dev.nhc.daemon.http.HttpFront;
import dev.nhc.daemon.http.RequestHead;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The daemon's own endpoints: {@code GET /healthz}, {@code GET /v1/verdict}, {@code GET /metrics}, and
 * {@code POST /v1/recheck} (runs every check now; needs {@code Authorization: Bearer <daemon.token>}).
 * A separate listener from the shim proxy, whose path space belongs to the shim.
 *
 * <p>Every request is read and answered by an {@link HttpFront} ({@link #LIMITS}): /healthz and
 * /v1/recheck on its loop thread, from memory, before anything else; /v1/verdict and /metrics are
 * made on one worker thread and shared by every request for the same thing within
 * {@link RecentAnswer#FRESH_NANOS} (a burst of scrapes costs one scrape); when that worker is
 * behind, they get 503 at once and /healthz still answers. A request with a body gets its answer and
 * the connection closes.
 */
public final class StatusServer implements AutoCloseable {
    /** Few clients (Prometheus, systemd, an admin's curl): small limits, sized to the process's file descriptors. */
    static final FrontLimits LIMITS = new FrontLimits(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(10),
            FdBudget.connections(256, 0.05), FdBudget.connections(64, 0.02), 0, 1024 * 1024);
    private static final int QUEUE = 32;

    private final HttpFront front;
    private final ThreadPoolExecutor worker;
    private final Supplier<DaemonStatus> status;
    private final Runnable recheck;
    private final String token;
    private final ScrapeAnswers scrapes;
    private final RecentAnswer verdicts = new RecentAnswer();

    public StatusServer(HostPort listen, Supplier<DaemonStatus> status, NhcMetrics metrics, String token, Runnable recheck,
                        Consumer<String> fatal) throws IOException {
        this(listen, status, metrics, token, recheck, fatal, LIMITS);
    }

    StatusServer(HostPort listen, Supplier<DaemonStatus> status, NhcMetrics metrics, String token, Runnable recheck,
                 Consumer<String> fatal, FrontLimits limits) throws IOException {
        this.status = status;
        this.recheck = recheck;
        this.token = token;
        this.scrapes = new ScrapeAnswers(metrics.registry());
        this.worker = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "nhc-status");
            t.setDaemon(true);
            return t;
        });
        worker.allowCoreThreadTimeOut(true);
        try {
            this.front = new HttpFront("status endpoints", listen.socketAddress(), null, this::route, limits, fatal);
        } catch (IOException e) {
            worker.shutdownNow();
            throw new IOException("daemon.metrics_listen " + listen + ": cannot listen (" + e.getMessage() + ")", e);
        }
    }

    public StatusServer start() {
        front.start();
        return this;
    }

    public InetSocketAddress address() {
        return front.address();
    }

    /** Bad connections so far (for /metrics). */
    long badConnections() {
        return front.badConnections();
    }

    @Override
    public void close() {
        front.close();
        worker.shutdownNow();
    }

    private CompletableFuture<HttpAnswer> route(RequestHead h) {
        String path = h.path();
        return switch (path) {
            case "/healthz" -> get(h, () -> done(healthz()));
            case "/v1/verdict" -> get(h, () -> {
                DaemonStatus s = status.get();
                return verdicts.get(s.verdict(), s.problems(), () -> onWorker(this::verdict));
            });
            case "/metrics" -> get(h, () -> scrapes.answer(h, this::onWorker));
            case "/v1/recheck" -> "POST".equals(h.method()) ? done(recheck(h)) : wrongMethod("POST");
            default -> done(json(404, "Not Found", Map.of("error", "no such path; try /healthz, /v1/verdict, /metrics")));
        };
    }

    private static CompletableFuture<HttpAnswer> get(RequestHead h, Supplier<CompletableFuture<HttpAnswer>> answer) {
        return "GET".equals(h.method()) || "HEAD".equals(h.method()) ? answer.get() : wrongMethod("GET");
    }

    private static CompletableFuture<HttpAnswer> wrongMethod(String allowed) {
        return done(json(405, "Method Not Allowed", Map.of("error", "use " + allowed)).withHeader("Allow", allowed));
    }

    private static CompletableFuture<HttpAnswer> done(HttpAnswer a) {
        return CompletableFuture.completedFuture(a);
    }

    /** Made on the worker; 503 at once when it is behind by more than its queue. */
    private CompletableFuture<HttpAnswer> onWorker(Supplier<HttpAnswer> make) {
        try {
            return CompletableFuture.supplyAsync(make, worker);
        } catch (RejectedExecutionException busy) {
            return done(json(503, "Service Unavailable", Map.of("error", "busy: " + QUEUE + " answers are being made; try again"))
                    .withHeader("Retry-After", "1"));
        }
    }

    private HttpAnswer healthz() {
        DaemonStatus s = status.get();
        Map<String, Object> m = new LinkedHashMap<>();
        boolean serving = s.unavailable().isEmpty();
        m.put("status", !serving ? "unavailable" : s.problems().isEmpty() ? "ok" : "degraded");
        m.put("verdict", s.verdict() == null ? "none-yet" : s.verdict().severity().label());
        m.put("problems", s.problems());
        // 200 while the daemon serves: its own trouble is reported, not turned into a restart loop;
        // 503 while a plugin cannot serve its clients (a proxy stuck on a hung upstream), with the reason.
        return serving ? json(200, "OK", m) : json(503, "Service Unavailable", m);
    }

    private HttpAnswer verdict() {
        DaemonStatus s = status.get();
        Verdict v = s.verdict();
        if (v == null) {
            return json(503, "Service Unavailable", Map.of("error", "no verdict yet: the first checks are still running"));
        }
        // The same object as `nhc run --json`; nhc's own trouble goes into its notes.
        return json(200, "OK", JsonReport.toMap(v, s.problems()));
    }

    private HttpAnswer recheck(RequestHead h) {
        if (token == null || token.isEmpty()) {
            return json(403, "Forbidden", Map.of("error", "disabled: set daemon.token to allow POST /v1/recheck"));
        }
        String auth = h.header("Authorization");
        String expected = "Bearer " + token;
        if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8))) {
            return json(401, "Unauthorized", Map.of("error", "missing or wrong bearer token"));
        }
        recheck.run();
        return json(202, "Accepted", Map.of("status", "rechecking all checks"));
    }

    private static HttpAnswer json(int status, String reason, Object body) {
        try {
            return HttpAnswer.json(status, reason, JSON.std.asBytes(body));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
