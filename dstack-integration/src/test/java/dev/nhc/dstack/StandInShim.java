package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A real HTTP server playing dstack-shim for the proxy tests: echo, digest, streaming, large downloads, health. */
final class StandInShim implements AutoCloseable {
    final HttpServer server;
    final ExecutorService pool = Executors.newFixedThreadPool(32);
    final AtomicReference<String> health = new AtomicReference<>("{\"dcgm\": null}");
    final CountDownLatch releaseStream = new CountDownLatch(1);
    /** Requests to /api/hang (and to health while {@link #healthHangs}) wait for this; {@link #hanging} counts them. */
    final CountDownLatch releaseHang = new CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicInteger hanging = new java.util.concurrent.atomic.AtomicInteger();
    volatile boolean healthHangs;
    final java.util.concurrent.atomic.AtomicInteger healthCalls = new java.util.concurrent.atomic.AtomicInteger();
    volatile String lastRequestHeaders = "";

    StandInShim() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        server.setExecutor(pool);
        server.createContext("/api/instance/health", ex -> {
            healthCalls.incrementAndGet();
            if (healthHangs) {
                hang();
            }
            send(ex, 200, health.get().getBytes(StandardCharsets.UTF_8));
        });
        // Headers and a first chunk, then nothing until the test lets it go on.
        server.createContext("/api/stall", ex -> {
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write("first-chunk\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            hang();
            try (out) {
                out.write("rest\n".getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the proxy gave up on us
            }
        });
        // A shim that accepted the request and never answers (until the test lets it).
        server.createContext("/api/hang", ex -> {
            hang();
            send(ex, 200, "{\"late\":true}".getBytes(StandardCharsets.UTF_8));
        });
        // Echoes the request body byte for byte and describes the request in headers.
        server.createContext("/api/echo", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().set("X-Method", ex.getRequestMethod());
            ex.getResponseHeaders().set("X-Raw-Path", ex.getRequestURI().getRawPath());
            ex.getResponseHeaders().set("X-Raw-Query", String.valueOf(ex.getRequestURI().getRawQuery()));
            ex.getResponseHeaders().set("X-Custom-Seen", String.valueOf(ex.getRequestHeaders().get("X-custom")));
            ex.getResponseHeaders().add("Set-Cookie", "a=1");
            ex.getResponseHeaders().add("Set-Cookie", "b=2");
            send(ex, 201, body);
        });
        // Digests a body of any size without keeping it.
        server.createContext("/api/digest", ex -> {
            MessageDigest md = sha256();
            long n = 0;
            byte[] buf = new byte[65536];
            try (InputStream in = ex.getRequestBody()) {
                int r;
                while ((r = in.read(buf)) > 0) {
                    md.update(buf, 0, r);
                    n += r;
                }
            }
            send(ex, 200, (n + " " + HexFormat.of().formatHex(md.digest())).getBytes(StandardCharsets.UTF_8));
        });
        // Sends ?mib=N MiB of a deterministic pattern, chunked.
        server.createContext("/api/big", ex -> {
            long mib = Long.parseLong(ex.getRequestURI().getQuery().substring("mib=".length()));
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                byte[] block = Patterns.block(0);
                for (long i = 0; i < mib * 16; i++) {
                    out.write(Patterns.block(i));
                }
            }
        });
        // First chunk at once, the rest only after the test releases it.
        server.createContext("/api/stream", ex -> {
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write("first-chunk\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                try {
                    releaseStream.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.write("second-chunk\n".getBytes(StandardCharsets.UTF_8));
            }
        });
        server.createContext("/api/slow", ex -> {
            try {
                Thread.sleep(20); // holds a worker briefly so that requests overlap in the concurrency test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            send(ex, 200, "ok".getBytes(StandardCharsets.UTF_8));
        });
        server.createContext("/api/healthcheck", ex -> {
            Map<String, String> seen = new TreeMap<>();
            ex.getRequestHeaders().forEach((k, v) -> seen.put(k, String.join(",", v)));
            lastRequestHeaders = seen.toString();
            send(ex, 200, "{\"service\":\"dstack-shim\",\"version\":\"latest\"}".getBytes(StandardCharsets.UTF_8));
        });
        server.start();
    }

    private void hang() {
        hanging.incrementAndGet();
        try {
            releaseHang.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            hanging.decrementAndGet();
        }
    }

    HostPort address() {
        return new HostPort("127.0.0.1", server.getAddress().getPort());
    }

    static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        releaseStream.countDown();
        releaseHang.countDown();
        server.stop(0);
        pool.shutdownNow();
    }

    /** A reproducible 64 KiB block per index, so that both ends can compute the same digest. */
    static final class Patterns {
        static byte[] block(long index) {
            byte[] b = new byte[65536];
            long x = index * 0x9E3779B97F4A7C15L + 1;
            for (int i = 0; i < b.length; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                b[i] = (byte) x;
            }
            return b;
        }
    }
}
