package dev.nhc.dstack;

import dev.nhc.daemon.http.FrontLimits;
import dev.nhc.daemon.http.HttpFront;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The proxy's listening side alone ({@link HttpFront} with the health route): health answered from a supplier, everything else relayed to a stand-in server. */
class ProxyFrontTest {
    private static final byte[] BODY = "{\"dcgm\":{\"overall_health\":0,\"incidents\":[]}}".getBytes(StandardCharsets.UTF_8);

    private StandInShim backend;
    private HttpFront front;
    private final AtomicReference<String> fatal = new AtomicReference<>();
    private final AtomicInteger answers = new AtomicInteger();
    private volatile CompletableFuture<byte[]> next;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws IOException {
        backend = new StandInShim();
        front = front(() -> {
            answers.incrementAndGet();
            CompletableFuture<byte[]> f = next;
            return f != null ? f : CompletableFuture.completedFuture(BODY);
        }, ShimProxy.LIMITS.withDeadlines(Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofSeconds(10)));
    }

    private HttpFront front(Supplier<CompletableFuture<byte[]>> health, FrontLimits limits) throws IOException {
        return new HttpFront("dstack proxy", new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", backend.address().port()),
                ShimProxy.healthRoute(ShimProxy.HEALTH_PATH, health), limits, fatal::set).start();
    }

    @AfterEach
    void stop() {
        front.close();
        backend.close();
    }

    private Socket socket() throws IOException {
        Socket s = new Socket("127.0.0.1", front.address().getPort());
        s.setSoTimeout(20_000);
        return s;
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void healthIsAnsweredByTheFrontAndOtherRequestsByTheServerBehind() throws Exception {
        URI base = URI.create("http://127.0.0.1:" + front.address().getPort());
        HttpResponse<String> h = client.send(HttpRequest.newBuilder(base.resolve(ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, h.statusCode());
        assertEquals(new String(BODY, StandardCharsets.UTF_8), h.body());
        assertEquals(1, answers.get());
        assertEquals(0, backend.healthCalls.get());

        HttpResponse<String> echo = client.send(HttpRequest.newBuilder(base.resolve("/api/echo?x=1"))
                .POST(HttpRequest.BodyPublishers.ofString("hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, echo.statusCode());
        assertEquals("hello", echo.body());
        // The same connection, relayed from then on: its next health request is the server's.
        HttpResponse<String> again = client.send(HttpRequest.newBuilder(base.resolve(ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, again.statusCode());
        assertEquals(1, backend.healthCalls.get(), "relayed: the server behind answered it");
        assertEquals(1, answers.get(), "not the front");
    }

    @Test
    void pipelinedHealthRequestsAreAnsweredInOrderAndHttp10Closes() throws Exception {
        try (Socket s = socket()) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/instance/health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /api/instance/health?again=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String got = readAll(s.getInputStream());
            assertEquals(2, got.split("HTTP/1.1 200 OK\r\n", -1).length - 1, got);
            assertTrue(got.endsWith(new String(BODY, StandardCharsets.UTF_8)), got);
            assertTrue(got.contains("Connection: close\r\n"), got);
        }
        try (Socket s = socket()) {
            s.getOutputStream().write("GET /api/instance/health HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String got = readAll(s.getInputStream()); // ends: HTTP/1.0 closes after the answer
            assertTrue(got.startsWith("HTTP/1.1 200 OK\r\n"), got);
        }
    }

    @Test
    void anAnswerThatComesLaterIsSentWhenItComes() throws Exception {
        CompletableFuture<byte[]> later = new CompletableFuture<>();
        next = later;
        CompletableFuture<HttpResponse<String>> r = client.sendAsync(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + front.address().getPort() + ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> answers.get() == 1);
        assertTrue(!r.isDone());
        later.complete("{\"late\":1}".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"late\":1}", r.get().body());
    }

    @Test
    void clientsThatSendTheirHeadSlowlyAreCutOffAndHoldNothingUp() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket s = socket();
                s.getOutputStream().write("GET /api/instance/hea".getBytes(StandardCharsets.US_ASCII));
                slow.add(s);
            }
            HttpResponse<String> h = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + front.address().getPort() + ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, h.statusCode());
            for (Socket s : slow) {
                String got = readAll(s.getInputStream());
                assertTrue(got.startsWith("HTTP/1.1 408 Request Timeout\r\n"), got);
            }
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    @Test
    void aThousandConcurrentHealthRequestsAreAllAnswered() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        URI health = URI.create("http://127.0.0.1:" + front.address().getPort() + ShimProxy.HEALTH_PATH);
        for (int i = 0; i < 1000; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> f : all) {
            assertEquals(200, f.get().statusCode());
        }
        assertEquals(1000, answers.get());
    }

    /**
     * Long heads share a bounded budget: 4096 clients each sending 15 KB of head without its blank
     * line once made the front hold 64 MiB, the daemon's whole heap. Past the budget a long head
     * gets 503; health polls go on; the budget is free again once those clients are gone.
     */
    @Test
    void longHeadsBeyondTheBudgetAreRefusedAndHealthPollsGoOn() throws Exception {
        byte[] longHead = ("GET /api/echo HTTP/1.1\r\nHost: x\r\nX-Long: " + "a".repeat(15_000)).getBytes(StandardCharsets.US_ASCII);
        try (HttpFront small = front(() -> CompletableFuture.completedFuture(BODY), ShimProxy.LIMITS.withHeadBudget(64 * 1024))) {
            int port = small.address().getPort();
            List<Socket> heads = new ArrayList<>();
            try {
                List<CompletableFuture<String>> answers = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    Socket s = new Socket("127.0.0.1", port);
                    s.setSoTimeout(60_000);
                    heads.add(s);
                    s.getOutputStream().write(longHead);
                    s.getOutputStream().flush();
                    answers.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return readAll(s.getInputStream());
                        } catch (IOException e) {
                            return e.toString();
                        }
                    }));
                }
                // 8 × 1 KiB to start with, and 15 KiB more for each long head: at most four fit in 64 KiB
                // (four only once the others are gone); the rest is refused, and answered at once.
                await().atMost(Duration.ofSeconds(20)).until(() -> answers.stream().filter(CompletableFuture::isDone).count() >= 4);
                // Closed with part of the head unread, the kernel may reset the connection before the 503 is read.
                for (CompletableFuture<String> a : answers) {
                    if (a.isDone() && !a.get().contains("Connection reset")) {
                        assertTrue(a.get().startsWith("HTTP/1.1 503 Service Unavailable\r\n"), a.get());
                        assertTrue(a.get().contains("too many long request heads"), a.get());
                    }
                }
                HttpResponse<String> h = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + ShimProxy.HEALTH_PATH)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, h.statusCode());
            } finally {
                for (Socket s : heads) {
                    s.close();
                }
            }
            // Their buffers are given back: a long head fits again and is relayed.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    s.setSoTimeout(20_000);
                    s.getOutputStream().write(longHead);
                    s.getOutputStream().write("\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".getBytes(StandardCharsets.US_ASCII));
                    String got = readAll(s.getInputStream());
                    assertTrue(got.startsWith("HTTP/1.1 201 "), got);
                }
            });
            assertEquals(null, small.failure());
        }
    }

    /**
     * A local user held ~4,200 idle connections and 18 of 20 dstack health polls failed: at the
     * limit new connections were refused. Now the idle ones make room, and every poll is answered.
     */
    @Test
    void idleConnectionsHeldAtTheLimitDoNotKeepHealthPollsOut() throws Exception {
        try (HttpFront small = front(() -> CompletableFuture.completedFuture(BODY), ShimProxy.LIMITS.withConnections(64, 32))) {
            int port = small.address().getPort();
            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 100; i++) {
                    idle.add(new Socket("127.0.0.1", port));
                }
                for (int i = 0; i < 20; i++) {
                    // A new connection for each poll, as dstack's tunnel opens one.
                    try (Socket poll = new Socket("127.0.0.1", port)) {
                        poll.setSoTimeout(20_000);
                        poll.getOutputStream().write("GET /api/instance/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                        String got = readAll(poll.getInputStream());
                        assertTrue(got.startsWith("HTTP/1.1 200 OK\r\n"), "poll " + i + ": " + got);
                    }
                    idle.add(new Socket("127.0.0.1", port)); // and the user opens more
                }
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    /** An error such as OutOfMemoryError ends the connection it came from, not the loop. */
    @Test
    void anErrorInOneConnectionEndsThatConnectionOnly() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (HttpFront f = front(() -> {
            if (calls.incrementAndGet() == 1) {
                throw new OutOfMemoryError("test");
            }
            return CompletableFuture.completedFuture(BODY);
        }, ShimProxy.LIMITS)) {
            URI health = URI.create("http://127.0.0.1:" + f.address().getPort() + ShimProxy.HEALTH_PATH);
            try (Socket s = new Socket("127.0.0.1", f.address().getPort())) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write("GET /api/instance/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String got;
                try {
                    got = readAll(s.getInputStream());
                } catch (IOException reset) {
                    got = "";
                }
                assertEquals("", got);
            }
            assertEquals(200, client.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(null, f.failure());
        }
    }

    /** Errors outside any connection that keep coming stop the loop, and it says so: the daemon is told, and exits. */
    @Test
    void aLoopThatKeepsFailingStopsAndSaysSo() throws Exception {
        URI health = URI.create("http://127.0.0.1:" + front.address().getPort() + ShimProxy.HEALTH_PATH);
        front.execute(() -> {
            throw new OutOfMemoryError("test 1");
        });
        // One error: connections are closed, the loop goes on.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertEquals(200, client.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()).statusCode()));
        assertEquals(null, front.failure());
        front.execute(() -> {
            throw new OutOfMemoryError("test 2");
        });
        front.execute(() -> {
            throw new OutOfMemoryError("test 3");
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> front.failure() != null);
        assertTrue(front.failure().contains("OutOfMemoryError: test 3"), front.failure());
        await().atMost(Duration.ofSeconds(10)).until(() -> fatal.get() != null);
        assertEquals(front.failure(), fatal.get());
    }
}
