package dev.nhc.daemon.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The front alone, answering everything itself: what clients can and cannot make it hold. */
class HttpFrontTest {
    private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
    private static final FrontLimits LIMITS = new FrontLimits(Duration.ofSeconds(10), Duration.ofSeconds(30),
            Duration.ofSeconds(10), 64, 16, 0, 1024 * 1024);

    private final List<HttpFront> fronts = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicReference<String> fatal = new AtomicReference<>();
    /** Never completes: a request for /pending stays in progress. */
    private final CompletableFuture<HttpAnswer> pending = new CompletableFuture<>();

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        fronts.forEach(HttpFront::close);
        assertEquals(null, fatal.get());
    }

    private HttpFront front(FrontLimits limits) throws IOException {
        HttpFront f = new HttpFront("test", new InetSocketAddress("127.0.0.1", 0), null, h -> switch (h.path()) {
            case "/x" -> CompletableFuture.completedFuture(HttpAnswer.json(200, "OK", BODY));
            case "/pending" -> pending;
            default -> CompletableFuture.completedFuture(HttpAnswer.json(404, "Not Found", "{}".getBytes(StandardCharsets.UTF_8)));
        }, limits, fatal::set).start();
        fronts.add(f);
        return f;
    }

    private Socket connect(HttpFront f) throws IOException {
        Socket s = new Socket("127.0.0.1", f.address().getPort());
        s.setSoTimeout(20_000);
        sockets.add(s);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            in.transferTo(b);
        } catch (IOException reset) {
            b.write(("<" + reset.getMessage() + ">").getBytes(StandardCharsets.ISO_8859_1));
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private String get(HttpFront f, String path) throws IOException {
        Socket s = connect(f);
        send(s, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        return readAll(s.getInputStream());
    }

    /** How many connections the front holds, read on its own thread. */
    private static int held(HttpFront f) throws Exception {
        CompletableFuture<Integer> n = new CompletableFuture<>();
        f.execute(() -> n.complete(f.conns.size()));
        return n.get();
    }

    @Test
    void idleConnectionsAtTheLimitMakeRoomForARequest() throws Exception {
        HttpFront f = front(LIMITS.withConnections(8, 8));
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            idle.add(connect(f));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held(f) == 8);
        for (int i = 0; i < 20; i++) {
            String got = get(f, "/x");
            assertTrue(got.startsWith("HTTP/1.1 200 OK\r\n"), "request " + i + ": " + got);
        }
        // The oldest idle one was closed to make room, without a word.
        assertEquals("", readAll(idle.get(0).getInputStream()));
        assertEquals(1, f.badConnections(), "one idle connection closed: each request ended its own after its answer");
    }

    @Test
    void oneClientHasItsOwnLimitAndIsRefusedWhenEveryConnectionIsBusy() throws Exception {
        HttpFront f = front(LIMITS.withConnections(64, 4));
        for (int i = 0; i < 4; i++) {
            send(connect(f), "GET /pending HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held(f) == 4);
        String refused = get(f, "/x");
        assertTrue(refused.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), refused);
        pending.complete(HttpAnswer.json(200, "OK", BODY));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(get(f, "/x").startsWith("HTTP/1.1 200 OK\r\n")));
    }

    @Test
    void slowHeadsAreCutOffWhileOthersAreAnswered() throws Exception {
        HttpFront f = front(LIMITS.withDeadlines(Duration.ofMillis(300), Duration.ofSeconds(30), Duration.ofSeconds(10)));
        List<Socket> slow = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Socket s = connect(f);
            send(s, "GET /x HTTP/1.1\r\nHo");
            slow.add(s);
        }
        assertTrue(get(f, "/x").startsWith("HTTP/1.1 200 OK\r\n"));
        for (Socket s : slow) {
            String got = readAll(s.getInputStream());
            assertTrue(got.startsWith("HTTP/1.1 408 Request Timeout\r\n"), got);
        }
    }

    @Test
    void pipelinedRequestsAreEachAnsweredInOrder() throws Exception {
        HttpFront f = front(LIMITS);
        Socket s = connect(f);
        send(s, "GET /x HTTP/1.1\r\nHost: x\r\n\r\nHEAD /x HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        String got = readAll(s.getInputStream());
        List<String> statuses = statuses(got);
        assertEquals(List.of("HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"), statuses, got);
        assertEquals(2, got.split("\\{\"ok\":true}", -1).length - 1, "HEAD got no body: " + got);
        assertTrue(got.endsWith("{\"ok\":true}"), got);
    }

    @Test
    void somethingThatIsNotHttpIsRefusedAndClosed() throws Exception {
        HttpFront f = front(LIMITS);
        Socket s = connect(f);
        send(s, "\u0016\u0003\u0001 hello\r\n\r\n");
        String got = readAll(s.getInputStream());
        assertTrue(got.startsWith("HTTP/1.1 400 Bad Request\r\n"), got);
    }

    /** Bursts of connections, reset or abandoned mid-request, leave no file descriptor behind. */
    @Test
    void burstsAndResetsLeaveNoDescriptorBehind() throws Exception {
        HttpFront f = front(LIMITS.withConnections(64, 64).withDeadlines(Duration.ofMillis(500), Duration.ofMillis(500),
                Duration.ofSeconds(10)));
        long before = openFds();
        for (int round = 0; round < 5; round++) {
            List<Socket> burst = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Socket s = new Socket("127.0.0.1", f.address().getPort());
                switch (i % 3) {
                    case 0 -> send(s, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
                    case 1 -> send(s, "GET /x HTTP/1.1\r\nHo");
                    default -> {
                        // connects and says nothing
                    }
                }
                burst.add(s);
            }
            for (int i = 0; i < burst.size(); i++) {
                if (i % 2 == 0) {
                    burst.get(i).setSoLinger(true, 0); // a reset
                }
                burst.get(i).close();
            }
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> held(f) == 0 && openFds() <= before + 2);
        assertTrue(get(f, "/x").startsWith("HTTP/1.1 200 OK\r\n"));
    }

    static List<String> statuses(String got) {
        return java.util.regex.Pattern.compile("HTTP/1\\.1 \\d{3} [^\r]*").matcher(got).results().map(m -> m.group()).toList();
    }

    private static long openFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void aHeadLongerThanTheLimitIsRefusedWithoutAServerBehind() throws Exception {
        HttpFront f = front(LIMITS);
        Socket s = connect(f);
        send(s, "GET /x HTTP/1.1\r\nX-Long: " + "a".repeat(HttpFront.HEAD_MAX) + "\r\n\r\n");
        String got = readAll(s.getInputStream());
        assertTrue(got.startsWith("HTTP/1.1 431 ") || got.contains("reset"), got);
    }

    @Test
    void aLoopThatKeepsFailingTellsTheDaemon() throws Exception {
        AtomicReference<String> told = new AtomicReference<>();
        HttpFront f = new HttpFront("test", new InetSocketAddress("127.0.0.1", 0), null,
                h -> CompletableFuture.completedFuture(HttpAnswer.json(200, "OK", BODY)), LIMITS, told::set).start();
        fronts.add(f);
        for (int i = 1; i <= 3; i++) {
            int n = i;
            f.execute(() -> {
                throw new StackOverflowError("test " + n);
            });
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> told.get() != null);
        assertTrue(told.get().startsWith("the test listener stopped after an internal error (java.lang.StackOverflowError: test 3)"),
                told.get());
    }
}
