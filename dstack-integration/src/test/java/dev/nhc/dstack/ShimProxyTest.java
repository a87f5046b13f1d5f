package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static dev.nhc.dstack.Verdicts.check;
import static dev.nhc.dstack.Verdicts.finding;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShimProxyTest {
    private static final int THREADS = 8;

    private StandInShim shim;
    private ShimProxy proxy;
    private final AtomicReference<Verdict> verdict = new AtomicReference<>(Verdicts.healthy());
    private final ShimProxy.Stats stats = new ShimProxy.Stats();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws IOException {
        shim = new StandInShim();
        proxy = startProxy(shim.address());
    }

    private ShimProxy startProxy(HostPort upstream) throws IOException {
        return new ShimProxy(new HostPort("127.0.0.1", 0), upstream, THREADS, Duration.ofSeconds(3),
                verdict::get, () -> OnUnknown.IGNORE, new HealthMerge(dev.nhc.engine.policy.SeverityPolicy.STANDARD), stats, Verdicts.NOT_FATAL).start();
    }

    @AfterEach
    void stop() {
        proxy.close();
        shim.close();
    }

    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + proxy.address().getPort() + pathAndQuery);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> health() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri(ShimProxy.HEALTH_PATH)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        return (Map<String, Object>) JSON.std.mapFrom(r.body()).get("dcgm");
    }

    @Test
    void passesMethodPathQueryHeadersAndBinaryBodyThroughByteForByte() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024 + 17];
        new Random(42).nextBytes(body);
        for (String method : List.of("POST", "PUT", "PATCH", "DELETE")) {
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/api/echo/a%20b/%2F?x=1&y=%C3%A9&x=2"))
                    .header("X-Custom", "one").header("X-Custom", "two")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(201, r.statusCode(), method);
            assertArrayEquals(body, r.body(), method);
            assertEquals(method, r.headers().firstValue("X-Method").orElseThrow());
            assertEquals("/api/echo/a%20b/%2F", r.headers().firstValue("X-Raw-Path").orElseThrow());
            assertEquals("x=1&y=%C3%A9&x=2", r.headers().firstValue("X-Raw-Query").orElseThrow());
            assertEquals("[one, two]", r.headers().firstValue("X-Custom-Seen").orElseThrow());
            assertEquals(List.of("a=1", "b=2"), r.headers().allValues("Set-Cookie"));
        }
    }

    @Test
    void chunkedRequestBodyArrivesIntact() throws Exception {
        byte[] body = new byte[1_000_003];
        new Random(7).nextBytes(body);
        // ofInputStream has no length, so the client sends it chunked.
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/api/echo"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertArrayEquals(body, r.body());
    }

    @Test
    void streamedResponseReachesTheClientBeforeTheUpstreamFinishes() throws Exception {
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(uri("/api/stream")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        InputStream in = r.body();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        CompletableFuture.runAsync(() -> {
            try {
                int b;
                while ((b = in.read()) >= 0) {
                    synchronized (got) {
                        got.write(b);
                    }
                }
            } catch (IOException ignored) {
                // the assertion below reports what arrived
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            synchronized (got) {
                return got.toString(StandardCharsets.UTF_8).equals("first-chunk\n");
            }
        });
        assertEquals(1, shim.releaseStream.getCount(), "the upstream is still holding back the rest");
        shim.releaseStream.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            synchronized (got) {
                return got.toString(StandardCharsets.UTF_8).equals("first-chunk\nsecond-chunk\n");
            }
        });
    }

    @Test
    void hugeBodiesAreStreamedBothWaysNotBuffered() throws Exception {
        // Surefire runs this JVM with a 256 MiB heap: buffering 384 MiB in either direction would fail.
        long blocks = 384 * 16;
        MessageDigest expected = StandInShim.sha256();
        for (long i = 0; i < blocks; i++) {
            expected.update(StandInShim.Patterns.block(i));
        }
        String digest = HexFormat.of().formatHex(expected.digest());

        InputStream upload = new InputStream() {
            long index;
            byte[] cur = new byte[0];
            int pos;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos == cur.length) {
                    if (index == blocks) {
                        return -1;
                    }
                    cur = StandInShim.Patterns.block(index++);
                    pos = 0;
                }
                int n = Math.min(len, cur.length - pos);
                System.arraycopy(cur, pos, b, off, n);
                pos += n;
                return n;
            }
        };
        HttpResponse<String> up = client.send(HttpRequest.newBuilder(uri("/api/digest"))
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() -> upload), blocks * 65536))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(blocks * 65536 + " " + digest, up.body());

        HttpResponse<InputStream> down = client.send(HttpRequest.newBuilder(uri("/api/big?mib=384")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        MessageDigest md = StandInShim.sha256();
        long n = 0;
        try (InputStream in = down.body()) {
            byte[] buf = new byte[65536];
            int r;
            while ((r = in.read(buf)) > 0) {
                md.update(buf, 0, r);
                n += r;
            }
        }
        assertEquals(blocks * 65536, n);
        assertEquals(digest, HexFormat.of().formatHex(md.digest()));
    }

    @Test
    void healthIsTheWorseOfShimAndNhcWithBothIncidents() throws Exception {
        shim.health.set("{\"dcgm\":{\"overall_health\":10,\"incidents\":[{\"system\":128,\"health\":10,"
                + "\"error_message\":\"GPU 0 thermal violation\",\"error_code\":1,\"entity_group_id\":1,\"entity_id\":0}]}}");
        verdict.set(Verdicts.with(check("xid", "gpu.xid", CheckStatus.COMPLETED,
                finding("gpu1", Severity.FAIL, "XID 79 on GPU 1: fallen off the bus"))));
        Map<String, Object> d = health();
        assertEquals(20, d.get("overall_health"));
        List<?> inc = (List<?>) d.get("incidents");
        assertEquals(2, inc.size());
        assertEquals("nhc: xid: XID 79 on GPU 1: fallen off the bus", ((Map<?, ?>) inc.get(0)).get("error_message"));
        assertEquals("GPU 0 thermal violation", ((Map<?, ?>) inc.get(1)).get("error_message"));

        verdict.set(Verdicts.healthy());
        assertEquals(10, health().get("overall_health"));
    }

    @Test
    void malformedShimAnswerGivesNhcVerdictPlusAnIncidentSayingSo() throws Exception {
        verdict.set(Verdicts.with(check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.FAIL, "/ is 99% full"))));
        Map<String, String> reasons = Map.of("this is not json", "(not JSON", "[1,2]", "(not a JSON object)",
                "{\"dcgm\":{\"overall_health\":5,\"incidents\":[]}}", "(overall_health is 5, not 0, 10 or 20)", "{}", "(no 'dcgm' member)");
        for (String bad : List.of("this is not json", "[1,2]", "{\"dcgm\":{\"overall_health\":5,\"incidents\":[]}}", "{}")) {
            shim.health.set(bad);
            // The shim's answer is reused for a second: wait for one given after the change.
            await().atMost(Duration.ofSeconds(10)).until(() -> health().toString().contains(reasons.get(bad)));
            Map<String, Object> d = health();
            assertEquals(20, d.get("overall_health"), bad);
            List<?> inc = (List<?>) d.get("incidents");
            assertEquals(2, inc.size(), bad);
            assertTrue(inc.stream().anyMatch(i -> ((String) ((Map<?, ?>) i).get("error_message")).contains("unusable")), bad);
        }
    }

    @Test
    void shimDownAnswersHealthFromNhcAloneAndEverythingElseWith502() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0)) {
            freePort = s.getLocalPort();
        }
        proxy.close();
        proxy = startProxy(new HostPort("127.0.0.1", freePort));
        verdict.set(Verdicts.with(check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.WARN, "/ is 90% full"))));
        Map<String, Object> d = health();
        assertEquals(10, d.get("overall_health"));
        assertEquals(1, ((List<?>) d.get("incidents")).size());
        HttpResponse<String> other = client.send(HttpRequest.newBuilder(uri("/api/tasks")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(502, other.statusCode());
        assertTrue(other.body().contains("not reachable"), other.body());
        HttpResponse<String> post = client.send(HttpRequest.newBuilder(uri("/api/tasks/x/terminate"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(502, post.statusCode());
    }

    @Test
    void twoHundredConcurrentRequestsAreAllServedByTheBoundedPool() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String path = i % 10 == 0 ? ShimProxy.HEALTH_PATH : "/api/slow?i=" + i;
            all.add(client.sendAsync(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int maxWorkers = 0;
        for (CompletableFuture<HttpResponse<String>> f : all) {
            maxWorkers = Math.max(maxWorkers, proxyThreads());
            assertEquals(200, f.get().statusCode());
        }
        assertTrue(proxyThreads() <= THREADS, "proxy threads: " + proxyThreads());
        assertTrue(maxWorkers <= THREADS, "proxy threads seen: " + maxWorkers);
        assertTrue(threads("nhc-proxy-front-") <= ShimProxy.FRONT_THREADS, "front threads: " + threads("nhc-proxy-front-"));
    }

    private static int proxyThreads() {
        return threads("nhc-proxy-pass-");
    }

    private static int threads(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void anUpstreamThatResetsMidBodyIsNotPassedOffAsAWholeAnswer() throws Exception {
        try (ServerSocket broken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            // The reset comes once the client has the status line: a reset that overtakes the
            // headers makes the kernel drop them unread, which is a plain 502, not this case.
            java.util.concurrent.CountDownLatch headersSeen = new java.util.concurrent.CountDownLatch(1);
            Thread t = new Thread(() -> {
                try (Socket s = broken.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    s.getOutputStream().write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "7\r\npartial\r\n").getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    headersSeen.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    s.setSoLinger(true, 0); // RST instead of FIN: the shim died mid-answer
                } catch (IOException | InterruptedException ignored) {
                    // the assertion below is about what the client saw
                }
            });
            t.start();
            proxy.close();
            proxy = startProxy(new HostPort("127.0.0.1", broken.getLocalPort()));
            HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(uri("/api/tasks/x/logs")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            headersSeen.countDown();
            assertEquals(200, r.statusCode());
            IOException broke = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> r.body().readAllBytes());
            assertTrue(broke.getMessage() != null, String.valueOf(broke));
            t.join(5000);
            await().atMost(Duration.ofSeconds(5)).until(() -> stats.upstreamErrors.sum() == 1);
        }
    }

    @Test
    void hopByHopHeadersStayOnTheirConnection() throws Exception {
        client.send(HttpRequest.newBuilder(uri("/api/healthcheck")).header("X-Trace", "t1").build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(shim.lastRequestHeaders.contains("X-trace=t1"), shim.lastRequestHeaders);
        assertFalse(shim.lastRequestHeaders.toLowerCase().contains("keep-alive"), shim.lastRequestHeaders);
    }

    // ---- issue 13 item 10: capacity and time limits ----

    private static final ShimProxy.Limits SHORT = new ShimProxy.Limits(Duration.ofSeconds(1), Duration.ofMillis(500),
            Duration.ofSeconds(10), Duration.ofMillis(200));

    private ShimProxy startProxy(HostPort upstream, int threads, Duration shimTimeout, ShimProxy.Limits limits) throws IOException {
        return new ShimProxy(new HostPort("127.0.0.1", 0), upstream, threads, shimTimeout, verdict::get, () -> OnUnknown.IGNORE, new HealthMerge(dev.nhc.engine.policy.SeverityPolicy.STANDARD),
                stats, limits, Verdicts.NOT_FATAL).start();
    }

    @Test
    void aBurstOfHealthRequestsCostsTheShimOneCallNotOneEach() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(uri(ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> f : all) {
            assertEquals(200, f.get().statusCode());
        }
        assertTrue(shim.healthCalls.get() < 20, "the shim was asked " + shim.healthCalls.get() + " times for 200 answers");
    }

    @Test
    void aHungShimHealthIsAnsweredFromNhcAndThenNotWaitedForAgain() throws Exception {
        proxy.close();
        proxy = startProxy(shim.address(), THREADS, Duration.ofMillis(300), SHORT);
        shim.healthHangs = true;
        verdict.set(Verdicts.with(check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.WARN, "/ is 90% full"))));
        Map<String, Object> first = health();
        assertEquals(10, first.get("overall_health"));
        assertTrue(first.toString().contains("no answer from 127.0.0.1:" + shim.address().port() + " within 300 ms"), first.toString());

        // While the shim is still being asked (and still hangs), every answer comes from what is known.
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(uri(ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> f : all) {
            HttpResponse<String> r = f.get();
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("no answer from"), r.body());
        }
        assertTrue(shim.healthCalls.get() < 20, "the hung shim was asked " + shim.healthCalls.get() + " times");
    }

    @Test
    void anUpstreamThatNeverAnswersGets504AndCountsAsHanging() throws Exception {
        proxy.close();
        proxy = startProxy(shim.address(), THREADS, Duration.ofSeconds(3), new ShimProxy.Limits(Duration.ofSeconds(1),
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofMillis(200)));
        CompletableFuture<HttpResponse<String>> hung = client.sendAsync(HttpRequest.newBuilder(uri("/api/hang")).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.problems().stream().anyMatch(p -> p.contains("is hanging: 1 pass-through request has")));
        HttpResponse<String> r = hung.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(504, r.statusCode());
        assertTrue(r.body().contains("did not answer within 5 s"), r.body());
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.problems().isEmpty());
    }

    /**
     * A client that reads a large response slowly holds the worker in a write to it: that is the
     * client's time. It once counted as "dstack-shim is hanging" (/healthz 503), and past the
     * upstream limit the watchdog cut the response off.
     */
    @Test
    void aClientThatReadsSlowlyIsNotBlamedOnTheShimNorCutOff() throws Exception {
        proxy.close();
        proxy = startProxy(shim.address(), THREADS, Duration.ofSeconds(3), SHORT);
        try (java.net.Socket s = new java.net.Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new java.net.InetSocketAddress("127.0.0.1", proxy.address().getPort()));
            s.setSoTimeout(30_000);
            s.getOutputStream().write("GET /api/big?mib=64 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            // Not reading for 1.5 s: far past the hanging limit (200 ms) and the upstream limit (500 ms).
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> proxy.problems().isEmpty());
            byte[] all = s.getInputStream().readAllBytes();
            String tail = new String(all, Math.max(0, all.length - 5), Math.min(5, all.length), StandardCharsets.US_ASCII);
            assertTrue(all.length > 64 * 1024 * 1024, all.length + " bytes");
            assertEquals("0\r\n\r\n", tail, "the chunked body ended properly, not cut off");
        }
        assertEquals(0, stats.upstreamErrors.sum());
    }

    @Test
    void aResponseBodyThatStallsIsCutOffAndTheClientSeesItBreak() throws Exception {
        proxy.close();
        proxy = startProxy(shim.address(), THREADS, Duration.ofSeconds(3), SHORT);
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(uri("/api/stall")).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        IOException broke = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> r.body().readAllBytes());
        assertTrue(broke.getMessage() != null, String.valueOf(broke));
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.upstreamErrors.sum() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.problems().isEmpty());
    }

    @Test
    void pastTheWorkersAndTheirQueueRequestsGet503WhileHealthIsStillAnswered() throws Exception {
        proxy.close();
        proxy = startProxy(shim.address(), 1, Duration.ofSeconds(3), ShimProxy.Limits.DEFAULT);
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 1 + 64 + 3; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(uri("/api/hang?i=" + i)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> stats.refused.sum() >= 3);
        assertTrue(proxy.problems().get(0).startsWith("shim proxy saturated: all 1 pass-through workers are busy and 64 requests wait"),
                proxy.problems().toString());
        assertEquals(200, client.send(HttpRequest.newBuilder(uri(ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
        shim.releaseHang.countDown();
        long busy = 0;
        for (CompletableFuture<HttpResponse<String>> f : all) {
            HttpResponse<String> r = f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            if (r.statusCode() == 503) {
                busy++;
                assertTrue(r.body().contains("pass-through workers are busy"), r.body());
            } else {
                assertEquals(200, r.statusCode(), r.body());
            }
        }
        assertEquals(3, busy);
    }
}
