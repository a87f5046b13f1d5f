package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.daemon.Daemon;
import dev.nhc.daemon.DaemonSection;
import dev.nhc.daemon.HostPort;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.Tags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dstack's plugin in a running daemon: the shim proxy answers from the daemon's verdict, and dstack's labels are on every metric. */
class DstackPluginTest {
    @TempDir
    Path dir;
    private Daemon daemon;
    private final DstackPlugin plugin = new DstackPlugin();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ConfigLoader loader() {
        ScriptedProbe gpu = new ScriptedProbe("gpu.test", true, ctx -> ProbeResult.of(Observation.of(Entity.gpu(2, "0000:3b:00.0"))
                .put("severity", "fail").put("message", "GPU 2: 2 volatile double-bit ECC errors").build()), Tags.GPU, Tags.MEMORY);
        return new ConfigLoader(new ProbeRegistry(List.of(gpu)), new PassThroughRules(), List.of(new DaemonSection(), new DstackSection()))
                .enforceOwnership(false);
    }

    private String config(String dstack) {
        return "nhc: 1\nsettings:\n  interval: 300ms\n  state_dir: " + dir.resolve("state") + "\n"
                + "daemon:\n  metrics_listen: 127.0.0.1:0\n" + dstack
                + "checks:\n  - { name: ecc, use: gpu.test }\n";
    }

    @Test
    void theProxyAnswersHealthFromTheDaemonsVerdictWithTheShimDown() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:1\n  project: main\n  fleet: ssh-fleet\n"));
        daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
        daemon.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);

        String url = "http://127.0.0.1:" + plugin.proxyAddress().getPort() + ShimProxy.HEALTH_PATH;
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(9)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        @SuppressWarnings("unchecked")
        Map<String, Object> dcgm = (Map<String, Object>) JSON.std.mapFrom(r.body()).get("dcgm");
        assertEquals(20, dcgm.get("overall_health"));
        Map<?, ?> first = (Map<?, ?>) ((List<?>) dcgm.get("incidents")).get(0);
        assertEquals("nhc: ecc: GPU 2: 2 volatile double-bit ECC errors", first.get("error_message"));
        assertEquals(DcgmSystem.MEM, first.get("system"), "the probe's memory tag, not its name");
        assertEquals(1, first.get("entity_group_id"));
        assertEquals(2, first.get("entity_id"), "the GPU index from the finding's entity");

        String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemon.statusAddress().getPort() + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(metrics.contains("nhc_check_severity{check=\"ecc\",dstack_fleet_name=\"ssh-fleet\",dstack_project_name=\"main\",probe=\"gpu.test\"} 3.0"),
                metrics);
        assertTrue(metrics.contains("nhc_proxy_health_answers_total{dstack_fleet_name=\"ssh-fleet\",dstack_project_name=\"main\",shim=\"down\"} 1.0"),
                metrics);
    }

    /**
     * Issue 13 item 10: 16 requests to a hung shim took every proxy worker; dstack's health poll
     * then went unanswered, and /healthz still said ok. The plugin says it cannot serve, and the
     * daemon's /healthz turns that into 503 with the reason.
     */
    @Test
    void sixteenHungPassThroughRequestsLeaveHealthAnsweredAndHealthzSaysTheProxyIsStuck() throws Exception {
        try (StandInShim shim = new StandInShim()) {
            Path file = dir.resolve("nhc.yaml");
            Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:" + shim.address().port() + "\n"));
            daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
            daemon.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
            String proxy = "http://127.0.0.1:" + plugin.proxyAddress().getPort();
            String status = "http://127.0.0.1:" + daemon.statusAddress().getPort();

            List<CompletableFuture<HttpResponse<String>>> hung = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                hung.add(http.sendAsync(HttpRequest.newBuilder(URI.create(proxy + "/api/hang?i=" + i)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> shim.hanging.get() == 16);

            // dstack's poll: answered within its 9 s, from nhc's verdict and the shim's own health.
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(proxy + ShimProxy.HEALTH_PATH))
                    .timeout(Duration.ofSeconds(9)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            @SuppressWarnings("unchecked")
            Map<String, Object> dcgm = (Map<String, Object>) JSON.std.mapFrom(health.body()).get("dcgm");
            assertEquals(20, dcgm.get("overall_health"));

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create(status + "/healthz"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(503, h.statusCode(), h.body());
                assertTrue(h.body().contains("\"status\":\"unavailable\""), h.body());
                assertTrue(h.body().contains("all 16 pass-through workers are busy"), h.body());
            });

            shim.releaseHang.countDown();
            for (var f : hung) {
                assertEquals(200, f.get(30, TimeUnit.SECONDS).statusCode());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> http.send(HttpRequest.newBuilder(URI.create(status + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        }
    }

    /** A request past the pass-through pool's queue is refused with 503, and counted among the plugin's metrics. */
    @Test
    void refusedPassThroughRequestsAreCountedInTheMetrics() throws Exception {
        try (StandInShim shim = new StandInShim()) {
            Path file = dir.resolve("nhc.yaml");
            Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:" + shim.address().port()
                    + "\n  proxy_threads: 1\n"));
            daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
            daemon.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
            String proxy = "http://127.0.0.1:" + plugin.proxyAddress().getPort();
            String metrics = "http://127.0.0.1:" + daemon.statusAddress().getPort() + "/metrics";

            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                sent.add(http.sendAsync(HttpRequest.newBuilder(URI.create(proxy + "/api/hang?i=" + i)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> sent.stream().anyMatch(f -> f.isDone() && f.join().statusCode() == 503));
            long refused = sent.stream().filter(f -> f.isDone() && f.join().statusCode() == 503).count();
            String text = http.send(HttpRequest.newBuilder(URI.create(metrics)).build(), HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^nhc_proxy_refused_total ([0-9.]+)$").matcher(text);
            assertTrue(m.find(), text);
            assertTrue(Double.parseDouble(m.group(1)) >= refused, refused + " refused, metrics say " + m.group(1));
            shim.releaseHang.countDown();
        }
    }

    /**
     * Issue 13's fault suite: a shim that accepts its health poll and never answers left every
     * answer to dstack with "health answer unusable", and /healthz still "ok" with no problems.
     */
    @Test
    void aShimWhoseHealthHangsMakesHealthzDegradedUntilItAnswersAgain() throws Exception {
        try (StandInShim shim = new StandInShim()) {
            shim.healthHangs = true;
            Path file = dir.resolve("nhc.yaml");
            Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:" + shim.address().port()
                    + "\n  shim_timeout: 1s\n"));
            daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
            daemon.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
            String health = "http://127.0.0.1:" + plugin.proxyAddress().getPort() + ShimProxy.HEALTH_PATH;
            String healthz = "http://127.0.0.1:" + daemon.statusAddress().getPort() + "/healthz";
            HttpResponse<String> before = http.send(HttpRequest.newBuilder(URI.create(healthz)).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(before.body().contains("\"status\":\"ok\""), "nothing asked of the shim yet: " + before.body());

            HttpResponse<String> poll = http.send(HttpRequest.newBuilder(URI.create(health)).timeout(Duration.ofSeconds(9)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, poll.statusCode());
            assertTrue(poll.body().contains("dstack-shim's health answer is unusable (no answer from"), poll.body());

            HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create(healthz)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, h.statusCode(), "the proxy still serves: degraded, not unavailable");
            assertTrue(h.body().contains("\"status\":\"degraded\""), h.body());
            assertTrue(h.body().contains("dstack-shim's health answer is unusable (no answer from 127.0.0.1:" + shim.address().port()
                    + " within 1000 ms) at the latest health poll"), h.body());

            shim.healthHangs = false;
            shim.releaseHang.countDown();
            await().atMost(Duration.ofSeconds(15)).until(() -> {
                http.send(HttpRequest.newBuilder(URI.create(health)).timeout(Duration.ofSeconds(9)).build(), HttpResponse.BodyHandlers.ofString());
                return http.send(HttpRequest.newBuilder(URI.create(healthz)).build(), HttpResponse.BodyHandlers.ofString()).body()
                        .contains("\"status\":\"ok\"");
            });
        }
    }

    @Test
    void withoutADstackSectionThereIsNoProxy() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config(""));
        daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
        daemon.start();
        assertEquals(null, plugin.proxyAddress());
    }

    @Test
    void theDaemonsOwnKeysMovedOutOfTheDstackSection() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config("dstack:\n  metrics_listen: 127.0.0.1:9464\n"));
        ConfigException e = assertThrows(ConfigException.class, () -> loader().load(file));
        assertTrue(e.getMessage().contains("nhc.yaml:8:19") && e.getMessage().contains("moved to the daemon's section"), e.getMessage());
    }

    @Test
    void aShimTimeoutOfZeroIsAConfigError() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config("dstack:\n  shim_timeout: 0s\n"));
        ConfigException e = assertThrows(ConfigException.class, () -> loader().load(file));
        assertTrue(e.getMessage().contains("nhc.yaml:8:17") && e.getMessage().contains("must be more than 0"), e.getMessage());
    }

    /** A refresh that could not even be asked ends: it once stayed "in flight" forever and every later poll waited on it. */
    @Test
    void aShimHealthRequestThatCannotBeMadeIsAnAnswerNotAHang() {
        ShimHealthCache cache = new ShimHealthCache(HttpClient.newHttpClient(), URI.create("http://127.0.0.1:1" + ShimProxy.HEALTH_PATH),
                HostPort.parse("127.0.0.1:1"), Duration.ZERO, 1024);
        CompletableFuture<ShimHealth> first = cache.current();
        assertTrue(first.isDone());
        assertTrue(first.join() instanceof ShimHealth.Malformed m && m.why().contains("failed"), first.join().toString());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(cache.current().isDone()));
    }

    @Test
    void theMovedTokensErrorDoesNotPrintTheSecret() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config("dstack:\n  token: s3cr3t-value\n"));
        ConfigException e = assertThrows(ConfigException.class, () -> loader().load(file));
        assertTrue(e.getMessage().contains("moved to the daemon's section") && e.getMessage().contains("token: <the same value>"),
                e.getMessage());
        assertTrue(!e.getMessage().contains("s3cr3t"), e.getMessage());
    }

    /** An answer of the shim's that the merge cannot use counts as malformed, not ok (it was classified before validation). */
    @Test
    void anUnusableShimAnswerIsCountedAsMalformed() throws Exception {
        try (StandInShim shim = new StandInShim()) {
            shim.health.set("{\"dcgm\": {\"overall_health\": 7, \"incidents\": []}}");
            Path file = dir.resolve("nhc.yaml");
            Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:" + shim.address().port() + "\n"));
            daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
            daemon.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
            String health = "http://127.0.0.1:" + plugin.proxyAddress().getPort() + ShimProxy.HEALTH_PATH;
            HttpResponse<String> poll = http.send(HttpRequest.newBuilder(URI.create(health)).timeout(Duration.ofSeconds(9)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(poll.body().contains("overall_health is 7"), poll.body());
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemon.statusAddress().getPort() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("nhc_proxy_health_answers_total{shim=\"malformed\"} 1.0"), metrics);
            assertTrue(metrics.contains("nhc_proxy_health_answers_total{shim=\"ok\"} 0.0"), metrics);
        }
    }

    /**
     * A reload that changes labels only leaves the listener (and its connections) alone; one whose
     * new address cannot be bound leaves the old proxy serving. Both once closed the listener first.
     */
    @Test
    void aReloadRestartsTheProxyOnlyWhenItMustAndAFailedOneKeepsTheOldServing() throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:1\n  project: a\n"));
        daemon = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, Clock.systemUTC(), "node1",
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), List.of(plugin));
        daemon.start();
        int port = plugin.proxyAddress().getPort();

        Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:0\n  shim: 127.0.0.1:1\n  project: b\n"));
        plugin.reloaded(loader().load(file));
        assertEquals(port, plugin.proxyAddress().getPort(), "labels only: the same listener (port 0 would pick a new port)");
        assertEquals(Map.of("dstack_project_name", "b"), plugin.metricLabels());

        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Files.writeString(file, config("dstack:\n  listen: 127.0.0.1:" + taken.getLocalPort() + "\n  shim: 127.0.0.1:1\n  project: c\n"));
            assertThrows(java.io.IOException.class, () -> plugin.reloaded(loader().load(file)));
        }
        assertEquals(port, plugin.proxyAddress().getPort());
        assertEquals(Map.of("dstack_project_name", "b"), plugin.metricLabels(), "the old settings stay");
        HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + ShimProxy.HEALTH_PATH))
                .timeout(Duration.ofSeconds(9)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, h.statusCode());
    }
}
