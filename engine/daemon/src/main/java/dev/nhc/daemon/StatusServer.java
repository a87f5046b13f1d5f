package dev.nhc.daemon;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.nhc.model.Verdict;
import dev.nhc.engine.report.JsonReport;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The daemon's own endpoints: {@code GET /healthz}, {@code GET /v1/verdict}, {@code GET /metrics}, and
 * {@code POST /v1/recheck} (runs every check now; needs {@code Authorization: Bearer <daemon.token>}).
 * A separate listener from the shim proxy, whose path space belongs to the shim.
 */
public final class StatusServer implements AutoCloseable {
    private final HttpServer server;
    private final ThreadPoolExecutor workers;
    private final Supplier<DaemonStatus> status;
    private final Runnable recheck;
    private final String token;

    public StatusServer(HostPort listen, Supplier<DaemonStatus> status, NhcMetrics metrics, String token, Runnable recheck)
            throws IOException {
        this.status = status;
        this.recheck = recheck;
        this.token = token;
        this.workers = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64), r -> {
            Thread t = new Thread(r, "nhc-status");
            t.setDaemon(true);
            return t;
        });
        JdkHttpServers.defaults();
        try {
            this.server = HttpServer.create(listen.socketAddress(), 32);
        } catch (IOException e) {
            throw new IOException("daemon.metrics_listen " + listen + ": cannot listen (" + e.getMessage() + ")", e);
        }
        server.setExecutor(workers);
        server.createContext("/healthz", ex -> guarded(ex, "GET", this::healthz));
        server.createContext("/v1/verdict", ex -> guarded(ex, "GET", this::verdict));
        server.createContext("/v1/recheck", ex -> guarded(ex, "POST", this::recheck));
        MetricsHandler mh = new MetricsHandler(metrics.registry());
        server.createContext("/metrics", ex -> {
            if (!"/metrics".equals(ex.getRequestURI().getPath())) {
                guarded(ex, "GET", e -> json(e, 404, Map.of("error", "no such path")));
                return;
            }
            mh.handle(ex);
        });
        server.createContext("/", ex -> guarded(ex, "GET", e -> json(e, 404, Map.of("error", "no such path; try /healthz, /v1/verdict, /metrics"))));
    }

    public StatusServer start() {
        server.start();
        return this;
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }

    private interface Route {
        void handle(HttpExchange ex) throws IOException;
    }

    private static void guarded(HttpExchange ex, String method, Route r) throws IOException {
        try (ex) {
            ex.getRequestBody().readNBytes(64 * 1024);
            if (!method.equals(ex.getRequestMethod()) && !("GET".equals(method) && "HEAD".equals(ex.getRequestMethod()))) {
                ex.getResponseHeaders().set("Allow", method);
                json(ex, 405, Map.of("error", "use " + method));
                return;
            }
            r.handle(ex);
        }
    }

    private void healthz(HttpExchange ex) throws IOException {
        DaemonStatus s = status.get();
        Map<String, Object> m = new LinkedHashMap<>();
        boolean serving = s.unavailable().isEmpty();
        m.put("status", !serving ? "unavailable" : s.problems().isEmpty() ? "ok" : "degraded");
        m.put("verdict", s.verdict() == null ? "none-yet" : s.verdict().severity().label());
        m.put("problems", s.problems());
        // 200 while the daemon serves: its own trouble is reported, not turned into a restart loop;
        // 503 while a plugin cannot serve its clients (a proxy stuck on a hung upstream), with the reason.
        json(ex, serving ? 200 : 503, m);
    }

    private void verdict(HttpExchange ex) throws IOException {
        DaemonStatus s = status.get();
        Verdict v = s.verdict();
        if (v == null) {
            json(ex, 503, Map.of("error", "no verdict yet: the first checks are still running"));
            return;
        }
        // The same object as `nhc run --json`; nhc's own trouble goes into its notes.
        json(ex, 200, JsonReport.toMap(v, s.problems()));
    }

    private void recheck(HttpExchange ex) throws IOException {
        if (token == null || token.isEmpty()) {
            json(ex, 403, Map.of("error", "disabled: set daemon.token to allow POST /v1/recheck"));
            return;
        }
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        String expected = "Bearer " + token;
        if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8))) {
            json(ex, 401, Map.of("error", "missing or wrong bearer token"));
            return;
        }
        recheck.run();
        json(ex, 202, Map.of("status", "rechecking all checks"));
    }

    private static void json(HttpExchange ex, int status, Object body) throws IOException {
        send(ex, status, JSON.std.asBytes(body));
    }

    private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if ("HEAD".equals(ex.getRequestMethod())) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }
}
