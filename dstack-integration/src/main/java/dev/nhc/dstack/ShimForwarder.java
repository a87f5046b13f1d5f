package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import dev.nhc.daemon.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The pass-through half of {@link ShimProxy}: sends one client request on to dstack-shim and
 * streams the shim's answer back, both ways without holding a body whole. Time the client takes
 * (a slow upload or a slow reader) is told apart from a stall of the shim's through
 * {@link UpstreamCalls.Call}, so that only the shim's stalls cut a response off.
 */
final class ShimForwarder {
    private static final Logger LOG = LoggerFactory.getLogger(ShimForwarder.class);

    static final int BUFFER_BYTES = 16 * 1024;

    /** Hop-by-hop headers (RFC 9110 7.6.1) belong to one connection and are not forwarded. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te", "trailer",
            "transfer-encoding", "upgrade", "proxy-authenticate", "proxy-authorization");
    /** Set by the client or server library itself from the body and the target. */
    private static final Set<String> SET_BY_LIBRARY = Set.of("host", "content-length", "expect", "date");

    private final HttpClient client;
    private final String shimBase;
    private final HostPort shim;
    private final Duration upstream;
    private final ShimProxy.Stats stats;

    ShimForwarder(HttpClient client, HostPort shim, String shimBase, Duration upstream, ShimProxy.Stats stats) {
        this.client = client;
        this.shim = shim;
        this.shimBase = shimBase;
        this.upstream = upstream;
        this.stats = stats;
    }

    /** The shim's response broke off after its headers were passed on: the client must not see a clean end. */
    static final class UpstreamBroke extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UpstreamBroke(IOException cause) {
            super("dstack-shim's response broke off: " + cause.getMessage(), cause);
        }
    }

    /** Relays the exchange on a pass-through worker; throws {@link UpstreamBroke} once the shim broke off a response already begun. */
    void forward(HttpExchange ex, UpstreamCalls.Call call) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(target(ex)).timeout(upstream);
        copyRequestHeaders(ex.getRequestHeaders(), b);
        b.method(ex.getRequestMethod(), requestBody(ex, call));
        HttpResponse<InputStream> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException | ConnectException e) {
            stats.upstreamErrors.increment();
            error(ex, 502, "dstack-shim at " + shim + " is not reachable");
            return;
        } catch (HttpTimeoutException e) {
            stats.upstreamErrors.increment();
            error(ex, 504, "dstack-shim at " + shim + " did not answer within " + ShimProxy.human(upstream));
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
        call.reading(r.body());
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
            copy(in, ex.getResponseBody(), call);
        }
    }

    /** Streams and flushes whenever the upstream has nothing more buffered, so streamed responses stay streamed. */
    static void copy(InputStream in, OutputStream out) throws IOException {
        copy(in, out, null);
    }

    private static void copy(InputStream in, OutputStream out, UpstreamCalls.Call call) throws IOException {
        byte[] buf = new byte[BUFFER_BYTES];
        int n;
        while ((n = readUpstream(in, buf, call)) >= 0) {
            if (n > 0) {
                int len = n;
                toClient(call, () -> out.write(buf, 0, len));
            }
            if (availableUpstream(in) == 0) {
                toClient(call, out::flush);
            }
        }
        toClient(call, out::flush);
    }

    private interface ClientIo {
        void run() throws IOException;
    }

    /** A write to the client: a slow reader is the client's time, not a stall of the shim's. */
    private static void toClient(UpstreamCalls.Call call, ClientIo io) throws IOException {
        if (call == null) {
            io.run();
            return;
        }
        call.clientBegin();
        try {
            io.run();
        } finally {
            call.clientEnd();
        }
    }

    /** The client's request body, read for the upload to the shim; a slow uploader is the client's time. */
    private static InputStream fromClient(InputStream in, UpstreamCalls.Call call) {
        return new java.io.FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                call.clientBegin();
                try {
                    return super.read();
                } finally {
                    call.clientEnd();
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                call.clientBegin();
                try {
                    return super.read(b, off, len);
                } finally {
                    call.clientEnd();
                }
            }
        };
    }

    private static int availableUpstream(InputStream in) {
        try {
            return in.available();
        } catch (IOException e) {
            throw new UpstreamBroke(e);
        }
    }

    private static int readUpstream(InputStream in, byte[] buf, UpstreamCalls.Call call) {
        try {
            int n = in.read(buf);
            if (call != null) {
                call.progress();
            }
            return n;
        } catch (IOException e) {
            if (call != null && call.gaveUp()) {
                throw new UpstreamBroke(new IOException("no data from dstack-shim for longer than the proxy's upstream limit", e));
            }
            throw new UpstreamBroke(e);
        }
    }

    private static HttpRequest.BodyPublisher requestBody(HttpExchange ex, UpstreamCalls.Call call) {
        Headers h = ex.getRequestHeaders();
        String cl = h.getFirst("Content-Length");
        boolean chunked = h.containsKey("Transfer-Encoding");
        if (cl != null && !chunked) {
            long len = Long.parseLong(cl.trim());
            if (len == 0) {
                // A POST with "Content-Length: 0" stays one: HttpClient sends that header for an empty fixed-length body.
                return HttpRequest.BodyPublishers.ofByteArray(new byte[0]);
            }
            return HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() -> fromClient(ex.getRequestBody(), call)), len);
        }
        if (chunked) {
            return HttpRequest.BodyPublishers.ofInputStream(() -> fromClient(ex.getRequestBody(), call));
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
        ShimProxy.drain(ex.getRequestBody());
        byte[] body = JSON.std.asBytes(Map.of("error", "nhc proxy: " + message)) ;
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
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
}
