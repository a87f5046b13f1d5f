package dev.nhc.daemon;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The daemon's own endpoints over real sockets, with a status and metrics each test controls. */
class StatusServerTest {
    private final AtomicInteger scrapes = new AtomicInteger();
    private final CountDownLatch scrapeMayGo = new CountDownLatch(1);
    private final AtomicReference<String> fatal = new AtomicReference<>();
    private final AtomicInteger rechecks = new AtomicInteger();
    private volatile boolean blockScrapes;
    private StatusServer server;

    @AfterEach
    void stop() {
        scrapeMayGo.countDown();
        if (server != null) {
            server.close();
        }
        assertEquals(null, fatal.get());
    }

    private StatusServer start() throws IOException {
        DaemonStatus s = new DaemonStatus(null, Map.of(), Instant.parse("2026-11-22T04:00:00Z"), List.of(), 0, 0, 0);
        NhcMetrics metrics = new NhcMetrics(dev.nhc.engine.policy.SeverityPolicy.STANDARD, () -> s, Map::of, out -> {
            scrapes.incrementAndGet();
            if (blockScrapes) {
                try {
                    scrapeMayGo.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            out.gauge("nhc_test", "a test gauge", 1);
        });
        server = new StatusServer(new HostPort("127.0.0.1", 0), () -> s, metrics, "s3cret", rechecks::incrementAndGet, fatal::set).start();
        return server;
    }

    private String exchange(String requests) throws IOException {
        try (Socket sock = new Socket("127.0.0.1", server.address().getPort())) {
            sock.setSoTimeout(20_000);
            sock.getOutputStream().write(requests.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            sock.getInputStream().transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    private static List<String> statuses(String got) {
        return java.util.regex.Pattern.compile("HTTP/1\\.1 \\d{3} [^\r]*").matcher(got).results().map(m -> m.group()).toList();
    }

    /** The JDK server answered the first of pipelined requests only; each gets its answer now, in order. */
    @Test
    void pipelinedRequestsAreEachAnswered() throws Exception {
        start();
        String got = exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/verdict HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertEquals(List.of("HTTP/1.1 200 OK", "HTTP/1.1 503 Service Unavailable", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"), statuses(got), got);
        assertTrue(got.contains("nhc_test 1"), got);
        assertTrue(got.contains("no verdict yet"), got);
    }

    /** A scrape that hangs holds the one worker: /healthz still answers at once, and the rest get 503, not a hang. */
    @Test
    void healthzAnswersWhileTheMetricsWorkerIsStuck() throws Exception {
        blockScrapes = true;
        start();
        List<CompletableFuture<String>> metrics = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // Each differs (a query), so that each is a scrape of its own for the worker.
            String q = "?name[]=nhc_test&n=" + i;
            metrics.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return exchange("GET /metrics" + q + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                } catch (IOException e) {
                    return e.toString();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scrapes.get() == 1);
        for (int i = 0; i < 20; i++) {
            String h = exchange("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(h.startsWith("HTTP/1.1 200 OK\r\n") && h.contains("\"status\":\"ok\""), h);
        }
        scrapeMayGo.countDown();
        for (CompletableFuture<String> m : metrics) {
            assertTrue(m.get().startsWith("HTTP/1.1 200 OK\r\n"), m.get());
        }
    }

    /** A burst of scrapes for the same thing costs one scrape. */
    @Test
    void aBurstOfScrapesSharesOne() throws Exception {
        blockScrapes = true;
        start();
        List<CompletableFuture<String>> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            all.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return exchange("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                } catch (IOException e) {
                    return e.toString();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scrapes.get() == 1);
        scrapeMayGo.countDown();
        for (CompletableFuture<String> m : all) {
            assertTrue(m.get().startsWith("HTTP/1.1 200 OK\r\n") && m.get().contains("nhc_test 1"), m.get());
        }
        assertTrue(scrapes.get() <= 2, scrapes.get() + " scrapes for 50 requests");
    }

    @Test
    void methodsPathsAndTheRecheckToken() throws Exception {
        start();
        String post = exchange("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        assertTrue(post.startsWith("HTTP/1.1 405 Method Not Allowed\r\n") && post.contains("Allow: GET\r\n"), post);
        assertTrue(exchange("GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n").startsWith("HTTP/1.1 404 "));
        String head = exchange("HEAD /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
        assertTrue(head.startsWith("HTTP/1.1 200 OK\r\n") && head.endsWith("\r\n\r\n"), head);
        assertTrue(exchange("POST /v1/recheck HTTP/1.1\r\nAuthorization: Bearer nope\r\nConnection: close\r\n\r\n")
                .startsWith("HTTP/1.1 401 "));
        assertEquals(0, rechecks.get());
        // A body nhc does not read: the answer, then the connection ends (the body is not taken for a request).
        String withBody = exchange("POST /v1/recheck HTTP/1.1\r\nAuthorization: Bearer s3cret\r\nContent-Length: 2\r\n\r\n{}");
        assertEquals(List.of("HTTP/1.1 202 Accepted"), statuses(withBody), withBody);
        assertTrue(withBody.contains("Connection: close\r\n"), withBody);
        assertEquals(1, rechecks.get());
    }
}
