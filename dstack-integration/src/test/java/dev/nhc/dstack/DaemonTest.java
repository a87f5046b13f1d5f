package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DaemonTest {
    @TempDir
    Path dir;

    private Daemon daemon;
    private final CountDownLatch releaseSlow = new CountDownLatch(1);
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Map<String, Severity> answer = new ConcurrentHashMap<>();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        releaseSlow.countDown();
        if (daemon != null) {
            daemon.close();
        }
    }

    /** Runs checks as the engine would, but with behaviour per check name: "slow*" blocks until released. */
    private CheckResult run(Config config, CheckConfig check) throws InterruptedException {
        runs.computeIfAbsent(check.name(), n -> new AtomicInteger()).incrementAndGet();
        if (check.name().startsWith("slow")) {
            releaseSlow.await();
        }
        Severity s = answer.getOrDefault(check.name(), Severity.PASS);
        Finding f = new Finding(check.name(), check.use().startsWith("gpu") ? "gpu2" : "node", s,
                check.name() + " says " + s.label(), Remedy.NONE, null, Map.of());
        return new CheckResult(check.name(), check.use(), CheckStatus.COMPLETED, s, 3, List.of(f), List.of(), null);
    }

    private Path write(String name, String yaml) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, yaml);
        return f;
    }

    private String config(String checks) {
        return config("127.0.0.1:1", checks);
    }

    private String config(String shim, String checks) {
        return "nhc: 1\nsettings:\n  interval: 300ms\n  state_dir: " + dir.resolve("state") + "\n"
                + "dstack:\n  listen: 127.0.0.1:0\n  metrics_listen: 127.0.0.1:0\n  shim: " + shim + "\n"
                + "  token: s3cret\n  project: main\n  fleet: ssh-fleet\n"
                + "checks:\n" + checks;
    }

    private Daemon start(Path file) throws Exception {
        daemon = new Daemon(() -> TestConfigs.loader().load(file), (c, k, s) -> run(c, k), Clock.systemUTC(), "node1",
                new PrintStream(logBytes, true, StandardCharsets.UTF_8));
        daemon.start();
        return daemon;
    }

    private int runs(String name) {
        AtomicInteger n = runs.get(name);
        return n == null ? 0 : n.get();
    }

    @Test
    void aSlowCheckDoesNotDelayAFastOne() throws Exception {
        start(write("nhc.yaml", config("""
                  - name: slow
                    use: test.slow
                    timeout: 60s
                  - name: fast
                    use: test.fast
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 4);
        assertEquals(1, runs("slow"), "the slow check is still in its first run and was not started twice");
        Verdict v = daemon.verdict();
        assertNotNull(v);
        assertEquals(List.of("fast"), v.checks().stream().map(CheckResult::name).toList());
        releaseSlow.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict().checks().size() == 2);
    }

    @Test
    void aRecheckDuringARunIsNotLostButRunsRightAfterIt() throws Exception {
        start(write("nhc.yaml", config("""
                  - name: slow
                    use: test.slow
                    every: 1h
                    timeout: 60s
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("slow") == 1);
        daemon.recheck(c -> true);
        daemon.recheck(c -> true);
        assertEquals(1, runs("slow"), "never two runs of one check at once");
        releaseSlow.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("slow") == 2);
    }

    @Test
    void eachCheckKeepsItsOwnInterval() throws Exception {
        start(write("nhc.yaml", config("""
                  - name: hourly
                    use: test.fast
                    every: 1h
                  - name: often
                    use: test.fast
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("often") >= 4);
        assertEquals(1, runs("hourly"));
        daemon.recheck(c -> c.name().equals("hourly"));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("hourly") == 2);
    }

    @Test
    void aGpuEventReEvaluatesGpuChecksAtOnce() throws Exception {
        start(write("nhc.yaml", config("""
                  - name: xid
                    use: gpu.test
                    every: 1h
                  - name: disk
                    use: test.fast
                    every: 1h
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null && daemon.verdict().checks().size() == 2);
        assertEquals(Severity.PASS, daemon.verdict().severity());
        answer.put("xid", Severity.FAIL);
        daemon.recheckGpu();
        await().atMost(Duration.ofSeconds(5)).until(() -> daemon.verdict().severity() == Severity.FAIL);
        assertEquals(1, runs("disk"));
        Finding f = daemon.verdict().findings().get(0);
        assertEquals("xid", f.check());
    }

    @Test
    void aTriggerSuchAsAnXidEventReRunsTheGpuChecksAtOnceAndIsClosedWithTheDaemon() throws Exception {
        java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<java.util.function.Predicate<CheckConfig>>> fire =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        Path file = write("nhc.yaml", config("""
                  - name: ecc
                    use: gpu.test
                    every: 1h
                  - name: disk
                    use: test.fast
                    every: 1h
                """));
        daemon = new Daemon(() -> TestConfigs.loader().load(file), (c, k, s) -> run(c, k), Clock.systemUTC(), "node1",
                new PrintStream(logBytes, true, StandardCharsets.UTF_8));
        daemon.addTrigger(new RecheckTrigger() {
            @Override
            public void start(Config config, java.util.function.Consumer<java.util.function.Predicate<CheckConfig>> recheck) {
                fire.set(recheck);
            }

            @Override
            public void close() {
                closed.set(true);
            }
        });
        daemon.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("ecc") == 1 && runs("disk") == 1);
        answer.put("ecc", Severity.FAIL);
        fire.get().accept(RecheckTrigger::gpuCheck);
        await().atMost(Duration.ofSeconds(5)).until(() -> daemon.verdict().severity() == Severity.FAIL);
        assertEquals(1, runs("disk"));
        daemon.close();
        assertTrue(closed.get());
    }

    @Test
    void aHungCheckTimesOutAsFailForGpuProbesAndUnknownOtherwise() throws Exception {
        Daemon.graceForTests(Duration.ofMillis(200));
        try {
            start(write("nhc.yaml", config("""
                      - name: slow-gpu
                        use: gpu.test
                        timeout: 500ms
                      - name: slow-disk
                        use: test.slow
                        timeout: 500ms
                    """)));
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null && daemon.verdict().checks().size() == 2);
            Map<String, CheckResult> byName = new java.util.HashMap<>();
            daemon.verdict().checks().forEach(c -> byName.put(c.name(), c));
            assertEquals(CheckStatus.TIMED_OUT, byName.get("slow-gpu").status());
            assertEquals(Severity.FAIL, byName.get("slow-gpu").severity());
            assertEquals(Severity.UNKNOWN, byName.get("slow-disk").severity());
            // still stuck: no second run piles up behind the first
            await().pollDelay(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5)).until(() -> true);
            assertEquals(1, runs("slow-gpu"));
        } finally {
            Daemon.graceForTests(Daemon.DEFAULT_GRACE);
        }
    }

    @Test
    void anInvalidConfigOnReloadIsReportedAndTheOldOneKeepsRunning() throws Exception {
        Path file = write("nhc.yaml", config("""
                  - name: fast
                    use: test.fast
                """));
        start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 1);
        Files.writeString(file, config("""
                  - name: broken
                    use: test.fsat
                """));
        assertFalse(daemon.reload());
        assertEquals("fast", daemon.config().checks().get(0).name());
        String problem = String.join("\n", daemon.status().problems());
        assertTrue(problem.contains("nhc.yaml:") && problem.contains("test.fsat"), problem);
        int before = runs("fast");
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") > before + 1);

        Files.writeString(file, config("""
                  - name: renamed
                    use: test.fast
                """));
        assertTrue(daemon.reload());
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null
                && daemon.verdict().checks().stream().map(CheckResult::name).toList().equals(List.of("renamed")));
        assertTrue(daemon.status().problems().isEmpty());
        assertEquals(2, daemon.status().reloads());
        assertEquals(1, daemon.status().reloadFailures());
    }

    @Test
    void aStateDirectoryThatCannotBeWrittenIsReportedWhileTheVerdictIsStillServed() throws Exception {
        Path notADir = dir.resolve("full");
        Files.writeString(notADir, "a file where the state directory should be");
        start(write("nhc.yaml", config("""
                  - name: fast
                    use: test.fast
                """).replace("state_dir: " + dir.resolve("state"), "state_dir: " + notADir.resolve("state"))));
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.status().stateWriteErrors() > 0);
        assertNotNull(daemon.verdict());
        String p = String.join("\n", daemon.status().problems());
        assertTrue(p.contains("cannot write state to " + notADir.resolve("state")), p);
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("cannot write state"));
    }

    @Test
    void theVerdictIsKeptInTheStateStore() throws Exception {
        answer.put("fast", Severity.WARN);
        start(write("nhc.yaml", config("""
                  - name: fast
                    use: test.fast
                """)));
        Path file = dir.resolve("state").resolve(Daemon.STATE_SECTION + ".json");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(file)
                && Files.readString(file).contains("fast says warn"));
    }

    @Test
    void statusEndpointsServeVerdictHealthMetricsAndAGuardedRecheck() throws Exception {
        answer.put("fast", Severity.WARN);
        start(write("nhc.yaml", config("""
                  - name: fast
                    use: test.fast
                    every: 1h
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
        String base = "http://127.0.0.1:" + daemon.statusAddress().getPort();

        HttpResponse<String> v = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/verdict")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, v.statusCode());
        Map<String, Object> json = JSON.std.mapFrom(v.body());
        assertEquals("warn", json.get("severity"));
        assertEquals("node1", json.get("node"));

        HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, h.statusCode());
        assertEquals("ok", JSON.std.mapFrom(h.body()).get("status"));

        HttpResponse<String> m = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, m.statusCode());
        assertTrue(m.body().contains("nhc_check_severity{check=\"fast\",dstack_fleet_name=\"ssh-fleet\",dstack_project_name=\"main\",probe=\"test.fast\"} 2.0"), m.body());
        assertTrue(m.body().contains("nhc_daemon_healthy{dstack_fleet_name=\"ssh-fleet\",dstack_project_name=\"main\"} 1.0"), m.body());

        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/recheck"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, noToken.statusCode());
        assertEquals(1, runs("fast"));
        HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/recheck"))
                .header("Authorization", "Bearer s3cret").POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(202, ok.statusCode());
        await().atMost(Duration.ofSeconds(5)).until(() -> runs("fast") == 2);
    }

    @Test
    void theProxyAnswersHealthFromTheDaemonsVerdictWithTheShimDown() throws Exception {
        answer.put("xid", Severity.FAIL);
        start(write("nhc.yaml", config("""
                  - name: xid
                    use: gpu.test
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
        String url = "http://127.0.0.1:" + daemon.proxyAddress().getPort() + ShimProxy.HEALTH_PATH;
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(9)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        @SuppressWarnings("unchecked")
        Map<String, Object> dcgm = (Map<String, Object>) JSON.std.mapFrom(r.body()).get("dcgm");
        assertEquals(20, dcgm.get("overall_health"));
        Map<?, ?> first = (Map<?, ?>) ((List<?>) dcgm.get("incidents")).get(0);
        assertEquals("nhc: xid: xid says fail", first.get("error_message"));
        assertEquals(1, first.get("entity_group_id"));
        assertEquals(2, first.get("entity_id"));
    }

    /**
     * Issue 13 item 10: 16 requests to a hung shim took every proxy worker; dstack's health poll
     * then went unanswered, and /healthz still said ok.
     */
    @Test
    void sixteenHungPassThroughRequestsLeaveHealthAnsweredAndHealthzSaysTheProxyIsStuck() throws Exception {
        try (StandInShim shim = new StandInShim()) {
            answer.put("xid", Severity.FAIL);
            start(write("nhc.yaml", config("127.0.0.1:" + shim.address().port(), """
                      - name: xid
                        use: gpu.test
                    """)));
            await().atMost(Duration.ofSeconds(10)).until(() -> daemon.verdict() != null);
            String proxy = "http://127.0.0.1:" + daemon.proxyAddress().getPort();
            String status = "http://127.0.0.1:" + daemon.statusAddress().getPort();

            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> hung = new java.util.ArrayList<>();
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
                assertTrue(h.body().contains("all 16 pass-through workers are busy"), h.body());
            });

            shim.releaseHang.countDown();
            for (var f : hung) {
                assertEquals(200, f.get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> http.send(HttpRequest.newBuilder(URI.create(status + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        }
    }
}
