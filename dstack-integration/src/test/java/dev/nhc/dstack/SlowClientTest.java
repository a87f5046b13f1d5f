package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;
import dev.nhc.engine.config.OnUnknown;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs in its own surefire execution with {@code sun.net.httpserver.maxReqTime=2}: the JDK server reads
 * that limit once per JVM, and the huge-body tests need the production default.
 */
@Tag("request-time-limit")
class SlowClientTest {
    private static final int THREADS = 4;

    @Test
    void clientsThatNeverFinishTheirRequestAreDisconnectedWhileOthersAreServed() throws Exception {
        assertEquals("2", System.getProperty("sun.net.httpserver.maxReqTime"));
        try (StandInShim shim = new StandInShim();
             ShimProxy proxy = new ShimProxy(new HostPort("127.0.0.1", 0), shim.address(), THREADS, Duration.ofSeconds(3),
                     Verdicts::healthy, () -> OnUnknown.IGNORE, new HealthMerge(dev.nhc.engine.policy.SeverityPolicy.STANDARD), new ShimProxy.Stats(), Verdicts.NOT_FATAL).start()) {
            List<Socket> slow = new ArrayList<>();
            try {
                // More stalled clients than worker threads.
                for (int i = 0; i < THREADS + 2; i++) {
                    Socket s = new Socket("127.0.0.1", proxy.address().getPort());
                    s.setSoTimeout(15_000);
                    OutputStream out = s.getOutputStream();
                    out.write("POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly-part".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    slow.add(s);
                }
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + proxy.address().getPort() + "/api/healthcheck"))
                        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
                for (Socket s : slow) {
                    assertTrue(closedByPeer(s), "a stalled client was not disconnected within 15 s");
                }
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    /** Reads until the server closes or resets; a read timeout (15 s) means it never did. */
    private static boolean closedByPeer(Socket s) {
        try {
            while (s.getInputStream().read() >= 0) {
                // a 400/408 answer before the close is fine
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
