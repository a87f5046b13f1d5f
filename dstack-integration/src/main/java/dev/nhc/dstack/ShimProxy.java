package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.nhc.daemon.HostPort;
import dev.nhc.daemon.JdkHttpServers;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.model.Verdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The health proxy in front of dstack-shim: every request goes to the real shim unchanged, except
 * {@code GET /api/instance/health}, which answers with {@link HealthMerge} from the verdict already in
 * memory (never a check run on demand) so that it is back well within dstack's 9 s.
 *
 * <p>Why the JDK's HTTP pieces and not a hand-written proxy: {@code com.sun.net.httpserver} already
 * parses requests correctly (keep-alive, chunked request bodies, Expect: 100-continue) and
 * {@code java.net.http.HttpClient} streams both ways, so nhc carries no HTTP parser and no extra
 * dependency. Bounds: a fixed number of worker threads and a bounded queue (a connection past the
 * queue is closed by the JDK server, not served by a new thread); each exchange holds one copy
 * buffer, bodies are streamed, never held whole; upstream connections are at most one per worker;
 * a client that does not finish its request within {@code sun.net.httpserver.maxReqTime} seconds
 * (30 unless set) is disconnected by the JDK server's timer.
 */
public final class ShimProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShimProxy.class);

    public static final String HEALTH_PATH = "/api/instance/health";
    static final int BUFFER_BYTES = 16 * 1024;
    static final int MAX_HEALTH_BYTES = 1024 * 1024;

    /** Hop-by-hop headers (RFC 9110 7.6.1) belong to one connection and are not forwarded. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te", "trailer",
            "transfer-encoding", "upgrade", "proxy-authenticate", "proxy-authorization");
    /** Set by the client or server library itself from the body and the target. */
    private static final Set<String> SET_BY_LIBRARY = Set.of("host", "content-length", "expect", "date");

    /**
     * The JDK server reads these once per JVM, when its first server is created: every nhc server
     * calls this before creating one. Values set on the command line win.
     */
    static void jdkServerDefaults() {
        JdkHttpServers.defaults();
    }

    /** Counters for /metrics. */
    public static final class Stats {
        public final LongAdder requests = new LongAdder();
        public final LongAdder healthAnswers = new LongAdder();
        public final LongAdder upstreamErrors = new LongAdder();
        public final LongAdder shimDownAnswers = new LongAdder();
        public final LongAdder shimMalformedAnswers = new LongAdder();
    }

    private final HttpServer server;
    private final ThreadPoolExecutor workers;
    private final HttpClient client;
    private final String shimBase;
    private final HostPort shim;
    private final Supplier<Verdict> verdict;
    private final Supplier<OnUnknown> onUnknown;
    private final Duration shimTimeout;
    private final Stats stats;

    public ShimProxy(HostPort listen, HostPort shim, int threads, Duration shimTimeout,
                     Supplier<Verdict> verdict, Supplier<OnUnknown> onUnknown, Stats stats) throws IOException {
        this.shim = shim;
        this.shimBase = "http://" + shim.uriAuthority();
        this.verdict = verdict;
        this.onUnknown = onUnknown;
        this.shimTimeout = shimTimeout;
        this.stats = stats;
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(threads * 64),
                r -> {
                    Thread t = new Thread(r, "nhc-proxy-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        workers.allowCoreThreadTimeOut(true);
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        jdkServerDefaults();
        try {
            this.server = HttpServer.create(listen.socketAddress(), 128);
        } catch (IOException e) {
            throw new IOException("dstack.listen " + listen + ": cannot listen (" + e.getMessage() + ")", e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(workers);
    }

    public ShimProxy start() {
        server.start();
        LOG.info("dstack shim health proxy on {} in front of {}", address(), shim);
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

    /** The shim's response broke off after its headers were passed on: the client must not see a clean end. */
    static final class UpstreamBroke extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UpstreamBroke(IOException cause) {
            super("dstack-shim's response broke off: " + cause.getMessage(), cause);
        }
    }

    private void handle(HttpExchange ex) {
        stats.requests.increment();
        boolean abort = false;
        try {
            if ("GET".equals(ex.getRequestMethod()) && HEALTH_PATH.equals(ex.getRequestURI().getPath())) {
                answerHealth(ex);
            } else {
                forward(ex);
            }
        } catch (UpstreamBroke e) {
            // Closing the exchange would end a chunked body properly and pass a truncated answer off as
            // whole; an exception out of the handler makes the JDK server drop the connection instead.
            stats.upstreamErrors.increment();
            abort = true;
            throw e;
        } catch (IOException | RuntimeException e) {
            // The client went away; the JDK server closes the connection.
            LOG.debug("proxy {} {}: {}", ex.getRequestMethod(), ex.getRequestURI(), e.toString());
        } finally {
            if (!abort) {
                ex.close();
            }
        }
    }

    private void answerHealth(HttpExchange ex) throws IOException {
        stats.healthAnswers.increment();
        drain(ex.getRequestBody());
        ShimHealth shimHealth = askShim(ex);
        if (shimHealth instanceof ShimHealth.Down) {
            stats.shimDownAnswers.increment();
        } else if (shimHealth instanceof ShimHealth.Malformed) {
            stats.shimMalformedAnswers.increment();
        }
        Map<String, Object> merged = HealthMerge.merge(shimHealth, verdict.get(), onUnknown.get());
        byte[] body = JSON.std.asBytes(merged);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
    }

    private ShimHealth askShim(HttpExchange ex) {
        HttpRequest.Builder b = HttpRequest.newBuilder(target(ex)).timeout(shimTimeout).GET();
        copyRequestHeaders(ex.getRequestHeaders(), b);
        try {
            HttpResponse<InputStream> r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                byte[] body = in.readNBytes(MAX_HEALTH_BYTES + 1);
                if (r.statusCode() != 200) {
                    return new ShimHealth.Malformed("HTTP " + r.statusCode());
                }
                if (body.length > MAX_HEALTH_BYTES) {
                    return new ShimHealth.Malformed("answer larger than " + MAX_HEALTH_BYTES + " bytes");
                }
                Object parsed;
                try {
                    parsed = JSON.std.anyFrom(body);
                } catch (IOException e) {
                    return new ShimHealth.Malformed("not JSON: " + firstLine(e.getMessage()));
                }
                if (!(parsed instanceof Map<?, ?> m)) {
                    return new ShimHealth.Malformed("not a JSON object");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) m;
                return new ShimHealth.Answer(map);
            }
        } catch (ConnectException | HttpConnectTimeoutException e) {
            return new ShimHealth.Down("dstack-shim at " + shim + " is not reachable");
        } catch (HttpTimeoutException e) {
            return new ShimHealth.Malformed("no answer from " + shim + " within " + shimTimeout.toMillis() + " ms");
        } catch (IOException e) {
            if (isRefused(e)) {
                return new ShimHealth.Down("dstack-shim at " + shim + " is not reachable");
            }
            return new ShimHealth.Malformed("reading from " + shim + " failed: " + firstLine(String.valueOf(e.getMessage())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ShimHealth.Malformed("interrupted");
        }
    }

    private void forward(HttpExchange ex) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(target(ex));
        copyRequestHeaders(ex.getRequestHeaders(), b);
        b.method(ex.getRequestMethod(), requestBody(ex));
        HttpResponse<InputStream> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (ConnectException | HttpConnectTimeoutException e) {
            stats.upstreamErrors.increment();
            error(ex, 502, "dstack-shim at " + shim + " is not reachable");
            return;
        } catch (IOException e) {
            stats.upstreamErrors.increment();
            error(ex, 502, isRefused(e) ? "dstack-shim at " + shim + " is not reachable"
                    : "dstack-shim at " + shim + " failed: " + firstLine(String.valueOf(e.getMessage())));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error(ex, 503, "nhc is shutting down");
            return;
        }
        Headers out = ex.getResponseHeaders();
        r.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(lower) && !SET_BY_LIBRARY.contains(lower) && !name.startsWith(":")) {
                out.put(name, values);
            }
        });
        long length = r.headers().firstValueAsLong("content-length").orElse(-1);
        int status = r.statusCode();
        boolean noBody = "HEAD".equals(ex.getRequestMethod()) || status == 204 || status == 304 || status < 200;
        try (InputStream in = r.body()) {
            if (noBody) {
                if (length >= 0 && "HEAD".equals(ex.getRequestMethod())) {
                    out.set("Content-Length", Long.toString(length));
                }
                ex.sendResponseHeaders(status, -1);
                return;
            }
            // The JDK server: -1 = no body, 0 = chunked, n = exactly n bytes.
            ex.sendResponseHeaders(status, length < 0 ? 0 : length == 0 ? -1 : length);
            copy(in, ex.getResponseBody());
        }
    }

    /** Streams and flushes whenever the upstream has nothing more buffered, so streamed responses stay streamed. */
    static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[BUFFER_BYTES];
        int n;
        while ((n = readUpstream(in, buf)) >= 0) {
            if (n > 0) {
                out.write(buf, 0, n);
            }
            if (availableUpstream(in) == 0) {
                out.flush();
            }
        }
        out.flush();
    }

    private static int availableUpstream(InputStream in) {
        try {
            return in.available();
        } catch (IOException e) {
            throw new UpstreamBroke(e);
        }
    }

    private static int readUpstream(InputStream in, byte[] buf) {
        try {
            return in.read(buf);
        } catch (IOException e) {
            throw new UpstreamBroke(e);
        }
    }

    private static HttpRequest.BodyPublisher requestBody(HttpExchange ex) {
        Headers h = ex.getRequestHeaders();
        String cl = h.getFirst("Content-Length");
        boolean chunked = h.containsKey("Transfer-Encoding");
        if (cl != null && !chunked) {
            long len = Long.parseLong(cl.trim());
            if (len == 0) {
                // A POST with "Content-Length: 0" stays one: HttpClient sends that header for an empty fixed-length body.
                return HttpRequest.BodyPublishers.ofByteArray(new byte[0]);
            }
            return HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(ex::getRequestBody), len);
        }
        if (chunked) {
            return HttpRequest.BodyPublishers.ofInputStream(ex::getRequestBody);
        }
        return HttpRequest.BodyPublishers.noBody();
    }

    private URI target(HttpExchange ex) {
        URI u = ex.getRequestURI();
        String q = u.getRawQuery();
        return URI.create(shimBase + u.getRawPath() + (q == null ? "" : "?" + q));
    }

    private static void copyRequestHeaders(Headers in, HttpRequest.Builder b) {
        for (Map.Entry<String, List<String>> e : in.entrySet()) {
            String lower = e.getKey().toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(lower) || SET_BY_LIBRARY.contains(lower)) {
                continue;
            }
            for (String v : e.getValue()) {
                try {
                    b.header(e.getKey(), v);
                } catch (IllegalArgumentException restricted) {
                    LOG.debug("header {} not forwarded: {}", e.getKey(), restricted.getMessage());
                }
            }
        }
    }

    private static void error(HttpExchange ex, int status, String message) throws IOException {
        drain(ex.getRequestBody());
        byte[] body = JSON.std.asBytes(Map.of("error", "nhc proxy: " + message)) ;
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }

    private static void drain(InputStream in) {
        try (in) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException ignored) {
            // Only emptying the connection for the next request; a broken one is closed anyway.
        }
    }

    private static boolean isRefused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).trim();
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
