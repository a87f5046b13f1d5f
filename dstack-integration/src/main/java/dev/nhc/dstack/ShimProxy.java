package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.nhc.daemon.FdBudget;
import dev.nhc.daemon.HostPort;
import dev.nhc.daemon.JdkHttpServers;
import dev.nhc.daemon.http.FrontLimits;
import dev.nhc.daemon.http.HttpAnswer;
import dev.nhc.daemon.http.HttpFront;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.model.Verdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The health proxy in front of dstack-shim: every request goes to the real shim unchanged, except
 * {@code GET /api/instance/health}, which answers with {@link HealthMerge} from the verdict already in
 * memory (never a check run on demand) and the shim's own health answer (asked at most once a
 * second, {@link ShimHealthCache}), so that it is back well within dstack's 9 s.
 *
 * <p>Why the JDK's HTTP pieces and not a hand-written proxy: {@code com.sun.net.httpserver} already
 * parses requests correctly (keep-alive, chunked request bodies, Expect: 100-continue) and
 * {@code java.net.http.HttpClient} streams both ways, so nhc carries no HTTP parser and no extra
 * dependency.
 *
 * <p>Capacity: an {@link HttpFront} ({@link #LIMITS}) listens, reads request heads on one selector thread and answers
 * the health route there, from memory, without a thread per connection; any other request is
 * relayed to the JDK server on a loopback port, whose threads ({@link #FRONT_THREADS}) read it and
 * hand it to a separate pool of {@code threads} pass-through workers ({@link ShimForwarder}) with
 * a bounded queue. So a hung shim can hold every pass-through worker and the health route still answers. Past the
 * queue, or after waiting {@link Limits#queueWait()} in it, a request gets 503. Time limits:
 * connecting to the shim ({@link Limits#connect()}), its response head and any stall of its
 * response body ({@link Limits#upstream()}; a stalled body is cut off, and the client sees a
 * broken response, never a short one passed off as whole); a request head must arrive within
 * {@code LIMITS.head()}, and a relayed request's head and body within
 * {@code sun.net.httpserver.maxReqTime} seconds (30 unless set), else the client is disconnected.
 * {@link #problems()} says when the pass-through pool is full or the shim hangs, for /healthz; should the
 * listener stop, the daemon is told ({@code fatal}) and exits, so that systemd starts it again.
 * Bodies are streamed, never held whole.
 */
public final class ShimProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShimProxy.class);

    public static final String HEALTH_PATH = "/api/instance/health";
    static final int MAX_HEALTH_BYTES = 1024 * 1024;

    /**
     * The JDK server reads these once per JVM, when its first server is created: every nhc server
     * calls this before creating one. Values set on the command line win.
     */
    static void jdkServerDefaults() {
        JdkHttpServers.defaults();
    }

    /** The JDK server's threads: they read relayed requests and hand them on; a stalled client holds one until maxReqTime. */
    static final int FRONT_THREADS = 32;

    /**
     * The listener's limits: 4096 connections (a thousand concurrent polls and then some), of which
     * 1024 from one address and 512 relayed, within the process's file descriptors; a client that
     * holds idle connections only makes room for the next poll (see {@link HttpFront}). The JDK
     * server behind gets at most the relayed ones, and its queue ({@link #FRONT_THREADS} threads,
     * 4096 waiting) never refuses one: a refused exchange's connection was never closed.
     */
    static final FrontLimits LIMITS = new FrontLimits(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(10),
            FdBudget.connections(4096, 0.5), FdBudget.connections(1024, 0.25), FdBudget.connections(512, 0.07), 8L * 1024 * 1024);

    /**
     * Time limits of pass-through: connecting to the shim; its response head and any stall of its
     * response body; how long a request may wait for a worker; after how long without anything
     * from the shim a request counts as hanging (for /healthz).
     */
    record Limits(Duration connect, Duration upstream, Duration queueWait, Duration hangingAfter) {
        static final Limits DEFAULT = new Limits(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofSeconds(15));
    }

    /** Counters for /metrics. */
    public static final class Stats {
        public final LongAdder requests = new LongAdder();
        public final LongAdder healthAnswers = new LongAdder();
        /** Health answers made with a usable answer of the shim's (its dcgm member checked, as the merge checks it). */
        public final LongAdder shimOkAnswers = new LongAdder();
        public final LongAdder upstreamErrors = new LongAdder();
        public final LongAdder shimDownAnswers = new LongAdder();
        /** The shim answered, but nothing usable: bad status, not JSON, too slow, or a dcgm member the merge cannot use. */
        public final LongAdder shimMalformedAnswers = new LongAdder();
        /** Pass-through requests answered 503 because every worker was busy and the queue full, or the wait too long. */
        public final LongAdder refused = new LongAdder();
    }

    private final HttpServer server;
    private final HttpFront listener;
    private final ThreadPoolExecutor front;
    private final ThreadPoolExecutor workers;
    private final int threads;
    private final ShimForwarder forwarder;
    private final HostPort shim;
    private final Supplier<Verdict> verdict;
    private final Supplier<OnUnknown> onUnknown;
    private final HealthMerge merge;
    private final Stats stats;
    private final Limits limits;
    private final ShimHealthCache shimHealth;
    private final UpstreamCalls calls;
    /** The last health answer's body and what it was made of: rebuilt only when one of them changed. */
    private volatile HealthBody lastHealth;

    private record HealthBody(Verdict verdict, ShimHealth shim, OnUnknown onUnknown, byte[] body, LongAdder counter) {
    }

    public ShimProxy(HostPort listen, HostPort shim, int threads, Duration shimTimeout,
                     Supplier<Verdict> verdict, Supplier<OnUnknown> onUnknown, HealthMerge merge, Stats stats, Consumer<String> fatal)
            throws IOException {
        this(listen, shim, threads, shimTimeout, verdict, onUnknown, merge, stats, Limits.DEFAULT, fatal);
    }

    ShimProxy(HostPort listen, HostPort shim, int threads, Duration shimTimeout,
              Supplier<Verdict> verdict, Supplier<OnUnknown> onUnknown, HealthMerge merge, Stats stats, Limits limits,
              Consumer<String> fatal) throws IOException {
        this.shim = shim;
        String shimBase = "http://" + shim.uriAuthority();
        this.verdict = verdict;
        this.onUnknown = onUnknown;
        this.merge = merge;
        this.stats = stats;
        this.limits = limits;
        this.threads = threads;
        this.front = pool("nhc-proxy-front-", FRONT_THREADS, 4096);
        this.workers = pool("nhc-proxy-pass-", threads, threads * 64);
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(limits.connect())
                .build();
        this.forwarder = new ShimForwarder(client, shim, shimBase, limits.upstream(), stats);
        this.shimHealth = new ShimHealthCache(client, URI.create(shimBase + HEALTH_PATH), shim, shimTimeout, MAX_HEALTH_BYTES);
        this.calls = new UpstreamCalls(limits.upstream(), limits.hangingAfter());
        jdkServerDefaults();
        this.server = HttpServer.create(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 128);
        server.createContext("/", this::handle);
        server.setExecutor(front);
        try {
            this.listener = new HttpFront("dstack proxy", listen.socketAddress(), server.getAddress(), healthRoute(HEALTH_PATH,
                    this::healthAnswer), LIMITS, fatal);
        } catch (IOException e) {
            calls.close();
            throw new IOException("dstack.listen " + listen + ": cannot listen (" + e.getMessage() + ")", e);
        }
    }

    private static ThreadPoolExecutor pool(String prefix, int threads, int queue) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor p = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue),
                r -> {
                    Thread t = new Thread(r, prefix + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        p.allowCoreThreadTimeOut(true);
        return p;
    }

    public ShimProxy start() {
        server.start();
        listener.start();
        LOG.info("dstack shim health proxy on {} in front of {}", address(), shim);
        return this;
    }

    public InetSocketAddress address() {
        return listener.address();
    }

    /**
     * What keeps the proxy from passing requests on right now, one sentence each; empty when it
     * can. /healthz answers 503 with these.
     */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        String front = listener.failure();
        if (front != null) {
            out.add(front);
        }
        int busy = calls.inProgress();
        if (busy >= threads) {
            int waiting = workers.getQueue().size();
            out.add("shim proxy saturated: all " + threads + " pass-through workers are busy"
                    + (waiting > 0 ? " and " + waiting + " request" + (waiting == 1 ? " waits" : "s wait") : ""));
        }
        out.addAll(calls.problems(shim));
        return out;
    }

    /** What was wrong with the shim's own health answer at the latest poll (a hung or broken shim), or null. */
    public String shimHealthProblem() {
        return shimHealth.problem();
    }

    @Override
    public void close() {
        listener.close();
        server.stop(0);
        workers.shutdownNow();
        front.shutdownNow();
        calls.close();
    }

    /** On a front thread: the health route is answered here, everything else handed to a pass-through worker. */
    private void handle(HttpExchange ex) {
        stats.requests.increment();
        if ("GET".equals(ex.getRequestMethod()) && HEALTH_PATH.equals(ex.getRequestURI().getPath())) {
            try {
                answerHealth(ex);
            } catch (IOException | RuntimeException e) {
                LOG.debug("proxy health answer: {}", e.toString()); // the client went away
            } finally {
                ex.close();
            }
            return;
        }
        // Set up before the handler returns: the exchange then lives on in the worker.
        ex.getRequestBody();
        AbortableOutputStream out = new AbortableOutputStream(ex.getResponseBody());
        ex.setStreams(null, out);
        long queued = System.nanoTime();
        try {
            workers.execute(() -> passThrough(ex, out, queued));
        } catch (RejectedExecutionException e) {
            stats.refused.increment();
            try {
                busy(ex, "all " + threads + " pass-through workers are busy and " + workers.getQueue().size()
                        + " requests wait (dstack-shim at " + shim + " is slow or hung)");
            } catch (IOException | RuntimeException ignored) {
                // the client went away
            } finally {
                ex.close();
            }
        }
    }

    /** On a pass-through worker: forwards, then ends the exchange; a response the shim broke off is cut, not closed cleanly. */
    private void passThrough(HttpExchange ex, AbortableOutputStream out, long queuedNanos) {
        UpstreamCalls.Call call = calls.start();
        try {
            long waited = System.nanoTime() - queuedNanos;
            if (waited > limits.queueWait().toNanos()) {
                stats.refused.increment();
                busy(ex, "waited " + TimeUnit.NANOSECONDS.toSeconds(waited) + " s for a pass-through worker (dstack-shim at "
                        + shim + " is slow or hung)");
                return;
            }
            forwarder.forward(ex, call);
        } catch (ShimForwarder.UpstreamBroke e) {
            // Closing the exchange normally would end a chunked body properly and pass a truncated
            // answer off as whole; the aborted stream makes the JDK server drop the connection instead.
            stats.upstreamErrors.increment();
            out.abort();
            LOG.debug("proxy {} {}: {}", ex.getRequestMethod(), ex.getRequestURI(), e.getMessage());
        } catch (IOException | RuntimeException e) {
            // The client went away; the JDK server closes the connection.
            LOG.debug("proxy {} {}: {}", ex.getRequestMethod(), ex.getRequestURI(), e.toString());
        } finally {
            calls.end(call);
            ex.close();
        }
    }

    /** The health route on a connection the JDK server holds (relayed keep-alive connections). */
    private void answerHealth(HttpExchange ex) throws IOException {
        drain(ex.getRequestBody());
        byte[] body = healthBody(shimHealth.get());
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
    }

    /**
     * What the front answers itself: a plain {@code GET} of the health path (no body, nothing only a
     * full server does); everything else is relayed.
     */
    static HttpFront.Routes healthRoute(String path, Supplier<CompletableFuture<byte[]>> health) {
        return h -> {
            if (!h.plain() || !"GET".equals(h.method()) || !path.equals(h.path())) {
                return null;
            }
            return health.get().thenApply(body -> body == null ? null : HttpAnswer.json(200, "OK", body));
        };
    }

    /** The health route's answer for the front: complete at once when the shim's part is in memory. */
    private CompletableFuture<byte[]> healthAnswer() {
        stats.requests.increment();
        CompletableFuture<ShimHealth> sh = shimHealth.current();
        return sh.isDone() ? CompletableFuture.completedFuture(healthBody(sh.join())) : sh.thenApply(this::healthBody);
    }

    private byte[] healthBody(ShimHealth sh) {
        Verdict v = verdict.get();
        OnUnknown u = onUnknown.get();
        HealthBody last = lastHealth;
        if (last == null || last.verdict() != v || last.shim() != sh || last.onUnknown() != u) {
            byte[] body;
            try {
                body = JSON.std.asBytes(merge.merge(sh, v, u));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            last = new HealthBody(v, sh, u, body, counterFor(sh));
            lastHealth = last;
        }
        stats.healthAnswers.increment();
        last.counter().increment();
        return last.body();
    }

    /** Classified after validation: an answer whose dcgm member the merge cannot use is malformed, not ok. */
    private LongAdder counterFor(ShimHealth sh) {
        if (sh instanceof ShimHealth.Down) {
            return stats.shimDownAnswers;
        }
        if (sh instanceof ShimHealth.Answer a && HealthMerge.shimProblem(a.body()) == null) {
            return stats.shimOkAnswers;
        }
        return stats.shimMalformedAnswers;
    }

    /** 503 without reading the request body: a busy proxy does not spend a thread on it; the connection closes after. */
    private static void busy(HttpExchange ex, String message) throws IOException {
        byte[] body = JSON.std.asBytes(Map.of("error", "nhc proxy: " + message));
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.getResponseHeaders().set("Retry-After", "1");
        ex.getResponseHeaders().set("Connection", "close");
        ex.sendResponseHeaders(503, body.length);
        ex.getResponseBody().write(body);
    }

    static void drain(InputStream in) {
        try (in) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException ignored) {
            // Only emptying the connection for the next request; a broken one is closed anyway.
        }
    }

    static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
