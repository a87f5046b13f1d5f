package dev.nhc.daemon;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.Tags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The daemon through the real plan executor, with test probes whose answer and speed each test controls by check name. */
class DaemonTest {
    @TempDir
    Path dir;

    private final List<Daemon> daemons = new ArrayList<>();
    private final CountDownLatch releaseSlow = new CountDownLatch(1);
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Map<String, Severity> answer = new ConcurrentHashMap<>();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        releaseSlow.countDown();
        daemons.forEach(Daemon::close);
    }

    /** Counts runs per check; "slow*" checks block until released; answers with the test's severity for the check. */
    private ProbeResult behave(ProbeContext ctx, Entity entity) throws InterruptedException {
        runs.computeIfAbsent(ctx.checkName(), n -> new AtomicInteger()).incrementAndGet();
        if (ctx.checkName().startsWith("slow")) {
            hangUntilReleased();
        }
        CountDownLatch g = gate.get();
        if (ctx.checkName().startsWith("gated") && g != null) {
            g.await();
        }
        Severity s = answer.getOrDefault(ctx.checkName(), Severity.PASS);
        return ProbeResult.of(Observation.of(entity).put("severity", s.label()).put("message", ctx.checkName() + " says " + s.label())
                .build());
    }

    /** Blocks like a native call: an interrupt does not end it, only the test's release does. */
    private void hangUntilReleased() {
        while (true) {
            try {
                releaseSlow.await();
                return;
            } catch (InterruptedException ignored) {
                // a blocked native call does not notice interrupts either
            }
        }
    }

    /** What test.latch-seen was told of its state: why it was lost, and why nhc holds the node. */
    private final AtomicReference<String> stateSeen = new AtomicReference<>();

    /** While set, "gated*" checks wait for it to open. */
    private final AtomicReference<CountDownLatch> gate = new AtomicReference<>();

    /** Latches like {@link #latching} but reads its latch before it works and writes it back after, as a real probe keeps its state. */
    private ProbeResult latchingEarly(ProbeContext ctx) throws InterruptedException {
        boolean latched = Boolean.TRUE.equals(ctx.state().get("latched"));
        ProbeResult r = behave(ctx, Entity.NODE);
        if (latched || "fail".equals(r.observations().get(0).get("severity"))) {
            ctx.state().put("latched", true);
            return ProbeResult.of(Observation.of(Entity.NODE).put("severity", "fail").put("message", "latched").build());
        }
        return r;
    }

    /** Latches: once its check answered fail, it stays failing until its state is cleared. */
    private ProbeResult latching(ProbeContext ctx) throws InterruptedException {
        ProbeResult r = behave(ctx, Entity.NODE);
        if ("fail".equals(r.observations().get(0).get("severity"))) {
            ctx.state().put("latched", true);
        }
        if (Boolean.TRUE.equals(ctx.state().get("latched"))) {
            return ProbeResult.of(Observation.of(Entity.NODE).put("severity", "fail").put("message", "latched").build());
        }
        return r;
    }

    private List<Probe> probes() {
        return List.of(new ScriptedProbe("test.fast", false, ctx -> behave(ctx, Entity.NODE)),
                new ScriptedProbe("test.latch", false, this::latching),
                new ScriptedProbe("test.latch-early", false, this::latchingEarly),
                new ScriptedProbe("test.latch-seen", false, ctx -> {
                    stateSeen.set(ctx.state().lostBecause() + " | " + ctx.state().heldBecause());
                    return latching(ctx);
                }),
                new ScriptedProbe("test.cursor", false, ctx -> {
                    ctx.state().put("cursor", 42); // moved past an event...
                    ProbeResult r = behave(ctx, Entity.NODE);
                    ctx.state().put("latched", true); // ...whose latch is set only here
                    return r;
                }),
                new ScriptedProbe("test.slow", false, ctx -> behave(ctx, Entity.NODE)),
                new ScriptedProbe("test.clock-step", false, ctx -> {
                    if (runs(ctx.checkName()) == 0) {
                        wall.step(Duration.ofHours(-1)); // NTP, or an admin, steps the clock back while the check runs
                    }
                    return behave(ctx, Entity.NODE);
                }),
                new ScriptedProbe("gpu.test", true, ctx -> behave(ctx, Entity.gpu(2, "0000:3b:00.0")), Tags.GPU, Tags.NVML),
                new ScriptedProbe(dev.nhc.probe.ProbeSpec.builder("test.last", "judges the other checks' observations, as script.js does")
                        .field("severity", dev.nhc.units.Unit.TEXT, "what PassThroughRules makes of it")
                        .field("message", dev.nhc.units.Unit.TEXT, "its message").runsLast().build(), this::judgingOthers));
    }

    /** What the last runsLast probe saw of the other checks, by check name. */
    private final AtomicReference<Map<String, List<Observation>>> sawOthers = new AtomicReference<>();

    private ProbeResult judgingOthers(ProbeContext ctx) {
        Map<String, List<Observation>> others = ctx.service(dev.nhc.probe.PriorObservations.class).map(p -> p.byCheck()).orElse(Map.of());
        sawOthers.set(others);
        runs.computeIfAbsent(ctx.checkName(), n -> new AtomicInteger()).incrementAndGet();
        return ProbeResult.of(Observation.of(Entity.NODE).put("severity", "pass").put("message", "sees " + others.keySet()).build());
    }

    private ConfigLoader loader() {
        return new ConfigLoader(new ProbeRegistry(probes()), new PassThroughRules(), List.of(new DaemonSection())).enforceOwnership(false);
    }

    private Path write(String name, String yaml) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, yaml);
        return f;
    }

    private String config(String checks) {
        return "nhc: 1\nsettings:\n  interval: 300ms\n  deadline: 2s\n  state_dir: " + dir.resolve("state") + "\n"
                + "daemon:\n  metrics_listen: 127.0.0.1:0\n  token: s3cret\n  socket: " + dir.resolve("run/nhc.sock") + "\n"
                + "checks:\n" + checks;
    }

    /** The wall clock the daemon and its executor see: the system's, stepped by what a test says. */
    private static final class SteppedClock extends Clock {
        private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

        void step(Duration by) {
            offset.updateAndGet(o -> o.plus(by));
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.now().plus(offset.get());
        }
    }

    private final SteppedClock wall = new SteppedClock();

    private Daemon daemon(Path file, DaemonPlugin... plugins) {
        Daemon d = new Daemon(() -> loader().load(file), SeverityPolicy.STANDARD, wall, "node1",
                new PrintStream(logBytes, true, StandardCharsets.UTF_8), Map.of(), List.of(plugins));
        daemons.add(d);
        return d;
    }

    private Daemon start(Path file, DaemonPlugin... plugins) throws Exception {
        Daemon d = daemon(file, plugins);
        d.start();
        return d;
    }

    private int runs(String name) {
        AtomicInteger n = runs.get(name);
        return n == null ? 0 : n.get();
    }

    private static List<String> names(Verdict v) {
        return v.checks().stream().map(CheckResult::name).toList();
    }

    @Test
    void aSlowCheckDoesNotDelayAFastOne() throws Exception {
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: slow, use: test.slow, timeout: 60s }
                  - { name: fast, use: test.fast }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 4);
        assertEquals(1, runs("slow"), "the slow check is still in its first run and was not started twice");
        assertEquals(List.of("fast"), names(d.verdict()));
        releaseSlow.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict().checks().size() == 2);
    }

    @Test
    void aRecheckDuringARunIsNotLostButRunsRightAfterIt() throws Exception {
        Daemon d = start(write("nhc.yaml", config("  - { name: slow, use: test.slow, every: 1h, timeout: 60s }\n")));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("slow") == 1);
        d.recheckAll();
        d.recheckAll();
        assertEquals(1, runs("slow"), "never two runs of one check at once");
        releaseSlow.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("slow") == 2);
    }

    /**
     * The schedule is kept on the monotonic clock: a wall clock stepped back an hour during a run
     * once put that check's next run an hour off (the "elapsed" time was negative), while /healthz
     * said ok. Now it runs on every interval as before, and the daemon reports nothing amiss.
     */
    @Test
    void aWallClockSteppedBackDuringARunDoesNotStopTheSchedule() throws Exception {
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: stepper, use: test.clock-step }
                  - { name: every-1h, use: test.fast, every: 1h }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("stepper") >= 5);
        assertEquals(1, runs("every-1h"), "an every: check is not made due by the step either");
        assertEquals(List.of(), d.status().problems());
    }

    /** A check whose runs stopped coming (a stalled scheduler, a clock gone wrong) is a problem /healthz shows. */
    @Test
    void aScheduleThatFellBehindIsAProblemForHealthz() throws Exception {
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: slow, use: test.slow, timeout: 60s }
                  - { name: gated, use: test.fast, timeout: 60s }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("gated") >= 2);
        assertEquals(List.of(), d.status().problems(), "a check that has not run yet (slow) is not behind");
        CountDownLatch g = new CountDownLatch(1);
        gate.set(g);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> d.status().problems().stream()
                    .anyMatch(p -> p.startsWith("the schedule is behind: check gated last finished")));
        } finally {
            g.countDown();
            gate.set(null);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> d.status().problems().isEmpty());
    }

    @Test
    void eachCheckKeepsItsOwnInterval() throws Exception {
        start(write("nhc.yaml", config("""
                  - { name: hourly, use: test.fast, every: 1h }
                  - { name: often, use: test.fast }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("often") >= 4);
        assertEquals(1, runs("hourly"));
    }

    @Test
    void aTriggerReRunsTheChecksOfItsTagAtOnceAndIsClosedWithTheDaemon() throws Exception {
        AtomicReference<Consumer<String>> fire = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        Daemon d = daemon(write("nhc.yaml", config("""
                  - { name: ecc, use: gpu.test, every: 1h }
                  - { name: disk, use: test.fast, every: 1h }
                """)));
        d.addTrigger(new RecheckTrigger() {
            @Override
            public void start(Plan plan, Consumer<String> recheck) {
                fire.set(recheck);
            }

            @Override
            public void close() {
                closed.set(true);
            }
        });
        d.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("ecc") == 1 && runs("disk") == 1);
        answer.put("ecc", Severity.FAIL);
        fire.get().accept(Tags.GPU);
        await().atMost(Duration.ofSeconds(5)).until(() -> d.verdict().severity() == Severity.FAIL);
        assertEquals(1, runs("disk"), "only the checks whose probe has the tag re-ran");
        Finding f = d.verdict().findings().get(0);
        assertEquals("ecc", f.check());
        assertEquals(2, f.entity().gpuIndex().getAsInt());
        d.close();
        assertTrue(closed.get());
    }

    @Test
    void aHungCheckTimesOutAsTheSeverityPolicySays() throws Exception {
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: slow-gpu, use: gpu.test, timeout: 500ms }
                  - { name: slow-disk, use: test.slow, timeout: 500ms }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null && d.verdict().checks().size() == 2);
        Map<String, CheckResult> byName = new java.util.HashMap<>();
        d.verdict().checks().forEach(c -> byName.put(c.name(), c));
        assertEquals(CheckStatus.TIMED_OUT, byName.get("slow-gpu").status());
        assertEquals(Severity.FAIL, byName.get("slow-gpu").severity(), "a hung GPU probe is a sick GPU");
        assertEquals(Severity.UNKNOWN, byName.get("slow-disk").severity());
        // still stuck: the schedule came round twice more, and no second run piled up behind the first
        await().atMost(Duration.ofSeconds(5)).until(() -> d.skippedWhileHung("slow-gpu") >= 2);
        assertEquals(1, runs("slow-gpu"));
    }

    @Test
    void anInvalidConfigOnReloadIsReportedAndTheOldOneKeepsRunning() throws Exception {
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n"));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 1);
        Files.writeString(file, config("  - { name: broken, use: test.fsat }\n"));
        assertFalse(d.reload());
        assertEquals("fast", d.plan().checks().get(0).name());
        String problem = String.join("\n", d.status().problems());
        assertTrue(problem.contains("nhc.yaml:") && problem.contains("test.fsat"), problem);
        int before = runs("fast");
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") > before + 1);

        Files.writeString(file, config("  - { name: renamed, use: test.fast }\n"));
        assertTrue(d.reload());
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null && names(d.verdict()).equals(List.of("renamed")));
        assertTrue(d.status().problems().isEmpty());
        assertEquals(2, d.status().reloads());
        assertEquals(1, d.status().reloadFailures());
    }

    @Test
    void aConfigThatWouldExhaustTheLoaderIsARejectedReloadWithItsPlaceAndNoStackTrace() throws Exception {
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n"));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 1);
        Path fifo = dir.resolve("fifo.yaml");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path zero = Files.createSymbolicLink(dir.resolve("zero.yaml"), Path.of("/dev/zero"));
        Files.writeString(file, config("  - { name: fast, use: test.fast }\n").replace("settings:\n", "settings: &s\n  loop: *s\n"));
        assertFalse(d.reload(), "a value that contains itself");
        assertTrue(String.join("\n", d.status().problems()).contains("nhc.yaml:2:11: alias *s is used inside its own anchor &s"),
                d.status().problems().toString());
        for (Path bad : List.of(fifo, zero)) {
            Files.delete(file);
            Files.createSymbolicLink(file, bad);
            assertFalse(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), d::reload), bad.toString());
            assertTrue(String.join("\n", d.status().problems()).contains("not a regular file"), d.status().problems().toString());
        }
        assertEquals(3, d.status().reloads());
        assertEquals(3, d.status().reloadFailures());
        assertEquals("fast", d.plan().checks().get(0).name(), "the old config keeps running");
        assertFalse(logBytes.toString(StandardCharsets.UTF_8).contains("\tat "), "no stack trace: " + logBytes);
    }

    @Test
    void aLoaderThatThrowsSomethingUnexpectedIsARejectedReloadToo() throws Exception {
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n"));
        AtomicInteger loads = new AtomicInteger();
        Daemon d = new Daemon(() -> {
            if (loads.incrementAndGet() > 1) {
                throw new StackOverflowError();
            }
            return loader().load(file);
        }, SeverityPolicy.STANDARD, Clock.systemUTC(), "node1", new PrintStream(logBytes, true, StandardCharsets.UTF_8),
                Map.of(), List.of());
        daemons.add(d);
        d.start();
        assertFalse(d.reload());
        assertEquals(1, d.status().reloadFailures());
        assertTrue(String.join("\n", d.status().problems()).contains("StackOverflowError"), d.status().problems().toString());
        assertFalse(logBytes.toString(StandardCharsets.UTF_8).contains("\tat "), "no stack trace: " + logBytes);
    }

    @Test
    void aStateDirectoryThatCannotBeWrittenIsReportedWhileTheVerdictIsStillServed() throws Exception {
        Path state = dir.resolve("state");
        Daemon d = start(write("nhc.yaml", config("  - { name: fast, use: test.fast }\n")));
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        // The disk "fills": the state file's place is taken by a directory, so writing it fails.
        Path file = state.resolve(LatestVerdict.SECTION + ".json");
        Files.deleteIfExists(file);
        Files.createDirectories(file);
        Files.writeString(file.resolve("x"), "keeps the directory from being replaced");
        answer.put("fast", Severity.WARN);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.status().stateWriteErrors() > 0);
        assertNotNull(d.verdict());
        String p = String.join("\n", d.status().problems());
        assertTrue(p.contains("cannot write state to " + state), p);
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("cannot write state"));
    }

    @Test
    void theVerdictIsKeptInTheStateStoreAndServedAgainAfterARestart() throws Exception {
        answer.put("fast", Severity.WARN);
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast, every: 1h }\n"));
        Daemon first = start(file);
        Path state = dir.resolve("state").resolve(LatestVerdict.SECTION + ".json");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(state) && Files.readString(state).contains("fast says warn"));
        first.close();

        // Before its checks have run, a restarted daemon serves the verdict it had.
        // fast without every: now, so that it runs at once (an every: check that is not due shows its saved result instead)
        Files.writeString(file, config("  - { name: slow-check, use: test.slow, every: 1h }\n  - { name: fast, use: test.fast }\n"));
        answer.put("fast", Severity.PASS);
        Daemon second = daemon(file);
        second.start();
        Verdict restored = second.verdict();
        assertNotNull(restored, "the last verdict is served at once");
        assertEquals(Severity.WARN, restored.severity());
        assertEquals("fast says warn", restored.findings().get(0).message());
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("serving the verdict of"));
        // The restored verdict stays until every check has run once (slow-check is still in its first run).
        await().atMost(Duration.ofSeconds(5)).until(() -> runs("fast") >= 2);
        assertEquals(Severity.WARN, second.verdict().severity());
        releaseSlow.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> second.verdict().severity() == Severity.PASS);
    }

    /** Issue 17 item 3: restarted on a failing verdict, with a latching check's state and the journal gone, the check is told. */
    @Test
    void aLatchingChecksStateMissingWhileTheRestoredVerdictFailsIsLostAndTheCheckKnowsNhcHoldsTheNode() throws Exception {
        answer.put("held", Severity.FAIL);
        Path file = write("nhc.yaml", config("  - { name: held, use: test.latch-seen }\n"));
        Daemon first = start(file);
        Path state = dir.resolve("state");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(state.resolve("daemon.json"))
                && Files.readString(state.resolve("daemon.json")).contains("\"fail\"") && Files.exists(state.resolve("check.held.json")));
        first.close();
        for (String f : List.of("check.held.json", "check.held.json.prev", "generations.journal")) {
            Files.delete(state.resolve(f));
        }
        answer.put("held", Severity.PASS);
        stateSeen.set(null);
        start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> stateSeen.get() != null);
        assertTrue(stateSeen.get().startsWith("its files are missing while nhc's last verdict (of "), stateSeen.get());
        assertTrue(stateSeen.get().endsWith(" failed the node"), stateSeen.get());
    }

    /** Issue 13's fault suite: a saved verdict of values nhc never writes was dropped without a word. */
    @Test
    void aSavedVerdictNhcDidNotWriteIsNotServedAndTheLogSaysSo() throws Exception {
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast, every: 1h }\n"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Files.writeString(state.resolve(LatestVerdict.SECTION + ".json"), "{\"verdict\": {\"severity\": \"fail\", \"started\": "
                + "\"2026-01-01T00:00:00Z\", \"checks\": [{\"name\": null, \"severity\": []}, {\"name\": \"fast\", "
                + "\"severity\": \"catastrophic\", \"status\": \"completed\"}, 7]}}\n");
        Daemon d = daemon(file);
        d.start();
        assertNull(d.verdict(), "nothing restored");
        String log = logBytes.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("not serving the verdict saved in " + state.resolve("daemon.json") + ": it is not one nhc wrote"), log);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        assertEquals(Severity.PASS, d.verdict().severity());
        d.close();
    }

    @Test
    void theDaemonHoldsTheRunLockSoASecondOneCannotStart() throws Exception {
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n").replace("deadline: 2s", "deadline: 1s"));
        start(file);
        Path other = write("other.yaml", config("  - { name: fast, use: test.fast }\n").replace("deadline: 2s", "deadline: 1s")
                .replace(dir.resolve("run/nhc.sock").toString(), dir.resolve("run/other.sock").toString()));
        Daemon second = daemon(other);
        IOException e = assertThrows(IOException.class, second::start);
        assertTrue(e.getMessage().contains("another nhc holds the run lock"), e.getMessage());
    }

    @Test
    void statusEndpointsServeVerdictHealthMetricsAndAGuardedRecheck() throws Exception {
        answer.put("fast", Severity.WARN);
        Daemon d = start(write("nhc.yaml", config("  - { name: fast, use: test.fast, every: 1h }\n")));
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        String base = "http://127.0.0.1:" + d.statusAddress().getPort();

        HttpResponse<String> v = get(base + "/v1/verdict");
        assertEquals(200, v.statusCode());
        Map<String, Object> json = JSON.std.mapFrom(v.body());
        assertEquals("warn", json.get("severity"));
        assertEquals("node1", json.get("node"));

        HttpResponse<String> h = get(base + "/healthz");
        assertEquals(200, h.statusCode());
        assertEquals("ok", JSON.std.mapFrom(h.body()).get("status"));

        HttpResponse<String> m = get(base + "/metrics");
        assertEquals(200, m.statusCode());
        assertTrue(m.body().contains("nhc_check_severity{check=\"fast\",probe=\"test.fast\"} 2.0"), m.body());
        assertTrue(m.body().contains("nhc_daemon_healthy 1.0"), m.body());

        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/recheck"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, noToken.statusCode());
        assertEquals(1, runs("fast"));
        HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/recheck"))
                .header("Authorization", "Bearer s3cret").POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(202, ok.statusCode());
        await().atMost(Duration.ofSeconds(5)).until(() -> runs("fast") == 2);
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void pluginsGetEveryVerdictAndAreToldWhenItChanged() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        DaemonPlugin recorder = new TestPlugin("recorder") {
            @Override
            public void start(DaemonContext daemon) {
                seen.add("start " + daemon.node());
            }

            @Override
            public void verdict(Verdict verdict, boolean changed) {
                seen.add(verdict.severity().label() + (changed ? " changed" : ""));
            }

            @Override
            public void metrics(MetricsOut out) {
                out.gauge("nhc_test_plugin", "a plugin's own sample", 7, "kind", "test");
            }

            @Override
            public void close() {
                seen.add("closed");
            }
        };
        Daemon d = start(write("nhc.yaml", config("  - { name: fast, use: test.fast }\n")), recorder);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("pass changed"));
        answer.put("fast", Severity.FAIL);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("fail changed"));
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream().filter("fail"::equals).count() >= 2);
        assertEquals("start node1", seen.get(0));
        assertEquals(1, seen.stream().filter("fail changed"::equals).count(), "an unchanged verdict is not news: " + seen);
        String metrics = get("http://127.0.0.1:" + d.statusAddress().getPort() + "/metrics").body();
        assertTrue(metrics.contains("nhc_test_plugin{kind=\"test\"} 7.0"), metrics);
        d.close();
        assertTrue(seen.contains("closed"));
    }

    /** A plugin that cannot serve its clients makes /healthz 503 with its reason, and 200 again once it can. */
    @Test
    void aPluginThatCannotServeMakesHealthz503WithItsReason() throws Exception {
        List<String> stuck = new CopyOnWriteArrayList<>(List.of("all 2 workers are busy"));
        DaemonPlugin proxy = new TestPlugin("stuck proxy") {
            @Override
            public List<String> unavailable() {
                return List.copyOf(stuck);
            }
        };
        Daemon d = start(write("nhc.yaml", config("  - { name: fast, use: test.fast }\n")), proxy);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        String base = "http://127.0.0.1:" + d.statusAddress().getPort();

        HttpResponse<String> h = get(base + "/healthz");
        assertEquals(503, h.statusCode(), h.body());
        Map<String, Object> json = JSON.std.mapFrom(h.body());
        assertEquals("unavailable", json.get("status"));
        assertEquals(List.of("all 2 workers are busy"), json.get("problems"));
        assertTrue(get(base + "/metrics").body().contains("nhc_daemon_healthy 0.0"));

        stuck.clear();
        HttpResponse<String> again = get(base + "/healthz");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals("ok", JSON.std.mapFrom(again.body()).get("status"));
    }

    /** A plugin that acts for the scheduler's health program, as Slurm's does. */
    private static DaemonPlugin actingForTheHealthProgram() {
        return new TestPlugin("scheduler") {
            @Override
            public boolean actsForHealthProgram() {
                return true;
            }
        };
    }

    @Test
    void aDaemonThatDoesNotActForTheSchedulerGivesItsHealthProgramNoVerdict() throws Exception {
        answer.put("fast", Severity.FAIL);
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n"));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        String reply = SocketClient.ask(dir.resolve("run/nhc.sock"), "verdict " + file);
        // Otherwise bin/nhc-slurm would take "fail" from it and exit, and nothing would drain the node.
        assertTrue(reply.startsWith("unavailable the daemon does not act on the scheduler"), reply);
    }

    @Test
    void theVerdictSocketAnswersBinNhcSlurmForItsOwnConfigOnly() throws Exception {
        answer.put("fast", Severity.FAIL);
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast }\n"));
        start(file, actingForTheHealthProgram());
        Path socket = dir.resolve("run/nhc.sock");
        await().atMost(Duration.ofSeconds(10)).until(() -> SocketClient.ask(socket, "verdict " + file).startsWith("ok "));
        String answerText = SocketClient.ask(socket, "verdict " + file);
        assertTrue(answerText.startsWith("ok 1\n"), answerText);
        assertTrue(answerText.contains("fast says fail"), answerText);
        assertEquals(0700, (Integer) Files.getAttribute(socket.getParent(), "unix:mode") & 0777, "only its owner reaches the socket");
        assertEquals(0600, (Integer) Files.getAttribute(socket, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS) & 0777);
        String other = SocketClient.ask(socket, "verdict " + dir.resolve("other.yaml"));
        assertTrue(other.startsWith("unavailable the daemon runs "), other);
    }

    @Test
    void nhcClearGoesThroughTheDaemonWhichForgetsTheLatchAndRunsTheCheckAgain() throws Exception {
        answer.put("xid", Severity.FAIL);
        Path file = write("nhc.yaml", config("  - { name: xid, use: test.latch, every: 1h }\n"));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null && d.verdict().severity() == Severity.FAIL);
        answer.put("xid", Severity.PASS);
        d.recheckAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("xid") >= 2);
        assertEquals("latched", d.verdict().findings().get(0).message(), "the fault stays latched after the cause went");

        DaemonClient.Reply r = DaemonClient.clear(dir.resolve("run/nhc.sock"), List.of("xid"));
        assertTrue(r.ok(), r.text());
        assertEquals(0, r.exitCode());
        assertTrue(r.text().contains("cleared xid"), r.text());
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict().severity() == Severity.PASS);
        assertEquals(2, DaemonClient.clear(dir.resolve("run/nhc.sock"), List.of("nope")).exitCode(), "an unknown check");
    }

    @Test
    void aStaleVerdictIsNotServedOnTheSocket() throws Exception {
        Path file = write("nhc.yaml", config("""
                  - { name: fast, use: test.fast }
                  - { name: slow, use: test.slow, timeout: 60s }
                """));
        start(file);
        Path socket = dir.resolve("run/nhc.sock");
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= 1);
        String a = SocketClient.ask(socket, "verdict " + file);
        assertTrue(a.startsWith("unavailable check slow has not run yet"), a);
    }

    /**
     * A hung probe is not started again, so its timeout result keeps its time: that result is the
     * verdict (the probe hangs), not a stale one, and bin/nhc-slurm still gets it.
     */
    @Test
    void aCheckStillHungPastTwoIntervalsIsTheVerdictNotAStaleOne() throws Exception {
        answer.put("fast", Severity.PASS);
        Path file = write("nhc.yaml", config("""
                  - { name: fast, use: test.fast }
                  - { name: slow-gpu, use: gpu.test, timeout: 300ms }
                """));
        Daemon d = start(file, actingForTheHealthProgram());
        await().atMost(Duration.ofSeconds(10)).until(() -> d.status().finishedAt().containsKey("slow-gpu"));
        java.time.Instant timedOut = d.status().finishedAt().get("slow-gpu");
        // past two of its intervals (300ms each) while the probe still hangs
        await().atMost(Duration.ofSeconds(10)).until(() -> Duration.between(timedOut, java.time.Instant.now()).toMillis() > 900);
        assertEquals(timedOut, d.status().finishedAt().get("slow-gpu"), "the hung check was not run again");
        String reply = SocketClient.ask(dir.resolve("run/nhc.sock"), "verdict " + file);
        assertTrue(reply.startsWith("ok 1\n"), reply);
        assertTrue(reply.contains("slow-gpu"), reply);
    }

    /** dcgm.diag every 6h is intrusive: a restart shows its saved result and runs it when it is due, not at once. */
    @Test
    void aRestartDoesNotRunAnEveryCheckBeforeItIsDue() throws Exception {
        answer.put("diag", Severity.WARN);
        Path file = write("nhc.yaml", config("  - { name: diag, use: test.fast, every: 1h }\n"));
        Daemon first = start(file);
        Path schedule = dir.resolve("state/schedule.json");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(schedule) && Files.readString(schedule).contains("last_run.diag"));
        first.close();

        Daemon second = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> second.status().finishedAt().containsKey("diag"));
        assertEquals(1, runs("diag"), "not run again before it is due");
        CheckResult r = second.verdict().checks().get(0);
        assertEquals(Severity.WARN, r.severity(), "its saved result is its answer until then");
        assertTrue(r.note().startsWith("not due (every 60m)"), r.note());
    }

    /** A reload keeps the timing of the checks it did not change; a changed one runs at once. */
    @Test
    void aReloadRunsOnlyTheChecksItChanged() throws Exception {
        Path file = write("nhc.yaml", config("""
                  - { name: hourly, use: test.fast, every: 1h }
                  - { name: changed, use: test.fast, every: 1h }
                """));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("hourly") == 1 && runs("changed") == 1);
        Files.writeString(file, config("""
                  - { name: hourly, use: test.fast, every: 1h }
                  - { name: changed, use: test.latch, every: 1h }
                  - { name: added, use: test.fast, every: 1h }
                """));
        assertTrue(d.reload());
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("changed") == 2 && runs("added") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict().checks().size() == 3);
        assertEquals(1, runs("hourly"), "an unchanged every: 1h check is not run again by a reload");
    }

    /** Plugins follow the config's sections over reloads: one whose section went is closed, one whose section came is started. */
    @Test
    void aReloadStartsAndStopsPluginsToMatchTheConfigAndRestartsTriggers() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        DaemonPlugin scheduler = new DaemonPlugin() {
            @Override
            public String name() {
                return "scheduler";
            }

            @Override
            public boolean wanted(Plan plan) {
                return plan.checks().stream().anyMatch(c -> c.name().equals("wants-scheduler"));
            }

            @Override
            public void start(DaemonContext daemon) {
                seen.add("start with " + daemon.plan().checks().size() + " checks");
            }

            @Override
            public void verdict(Verdict verdict, boolean changed) {
                seen.add("verdict");
            }

            @Override
            public void close() {
                seen.add("closed");
            }
        };
        List<String> triggered = new CopyOnWriteArrayList<>();
        Path file = write("nhc.yaml", config("  - { name: fast, use: test.fast, every: 1h }\n"));
        Daemon d = daemon(file, scheduler);
        d.addTrigger(new RecheckTrigger() {
            @Override
            public void start(Plan plan, Consumer<String> recheck) {
                triggered.add("start " + plan.checks().size());
            }

            @Override
            public void close() {
                triggered.add("close");
            }
        });
        d.start();
        assertTrue(d.runningPlugins().isEmpty());

        Files.writeString(file, config("  - { name: fast, use: test.fast, every: 1h }\n  - { name: wants-scheduler, use: test.fast, every: 1h }\n"));
        assertTrue(d.reload());
        assertEquals(List.of(scheduler), d.runningPlugins());
        assertEquals("start with 2 checks", seen.get(0), "started with the new plan in place");
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("verdict"));
        assertEquals(List.of("start 1", "start 2"), triggered, "the trigger was started again with the new plan");

        Files.writeString(file, config("  - { name: fast, use: test.fast, every: 1h }\n"));
        assertTrue(d.reload());
        assertTrue(d.runningPlugins().isEmpty());
        assertTrue(seen.contains("closed"), seen.toString());
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("scheduler stopped: the config has no section for it any more"));
    }

    /** The plugins' periodic look (settings.interval) follows a reload that changes the interval. */
    @Test
    void aReloadThatShortensTheIntervalReschedulesThePeriodicTick() throws Exception {
        AtomicInteger verdicts = new AtomicInteger();
        DaemonPlugin counter = new TestPlugin("counter") {
            @Override
            public void verdict(Verdict verdict, boolean changed) {
                verdicts.incrementAndGet();
            }
        };
        String checks = "  - { name: fast, use: test.fast, every: 1h }\n";
        Path file = write("nhc.yaml", config(checks).replace("interval: 300ms", "interval: 1h"));
        Daemon d = start(file, counter);
        await().atMost(Duration.ofSeconds(10)).until(() -> verdicts.get() >= 1);
        Files.writeString(file, config(checks));
        assertTrue(d.reload());
        int before = verdicts.get();
        // with the old hourly tick nothing would come; the check itself is not due for an hour
        await().atMost(Duration.ofSeconds(10)).until(() -> verdicts.get() >= before + 3);
        assertEquals(1, runs("fast"));
    }

    /** Run alone by the daemon, a check that judges the others (script.js) still gets their latest observations. */
    @Test
    void aCheckThatJudgesTheOthersSeesTheirLatestObservations() throws Exception {
        answer.put("disk", Severity.WARN);
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: disk, use: test.fast, every: 1h }
                  - { name: judge, use: test.last, every: 1h }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("disk") == 1 && runs("judge") >= 1);
        d.recheckAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("judge") >= 2 && sawOthers.get().containsKey("disk"));
        Observation o = sawOthers.get().get("disk").get(0);
        assertEquals("disk says warn", o.get("message"));
        assertFalse(sawOthers.get().containsKey("judge"), "not its own");
    }

    /** Host patterns with a dot are matched against the kernel's full host name in the daemon as in nhc run (LBNL NHC's meaning). */
    @Test
    void aHostPatternWithADotMatchesTheFullHostName() throws Exception {
        Daemon d = daemon(write("nhc.yaml", config("""
                  - { name: in-domain, use: test.fast, on: "*.cluster.local" }
                  - { name: elsewhere, use: test.fast, on: "*.other.org" }
                """)));
        d.hostName = "node1.cluster.local";
        d.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null && d.verdict().checks().size() == 2);
        Map<String, CheckStatus> status = new java.util.HashMap<>();
        d.verdict().checks().forEach(c -> status.put(c.name(), c.status()));
        assertEquals(Map.of("in-domain", CheckStatus.COMPLETED, "elsewhere", CheckStatus.SKIPPED), status);
    }

    /**
     * A hang in the daemon is judged by the check's unit, as in a one-shot run: same wording, and
     * on_unknown applied (the daemon once built its own timeout result beside the executor's).
     */
    @Test
    void aHangInTheDaemonAppliesOnUnknownWithTheOneShotWording() throws Exception {
        Daemon d = start(write("nhc.yaml", config("  - { name: slow-disk, use: test.slow, timeout: 600ms }\n")
                .replace("settings:\n", "settings:\n  on_unknown: fail\n")));
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        CheckResult r = d.verdict().checks().get(0);
        assertEquals(CheckStatus.TIMED_OUT, r.status());
        assertEquals(Severity.FAIL, r.severity(), "on_unknown: fail makes a hang count");
        assertEquals("probe test.slow did not finish within 600ms; abandoned", r.findings().get(0).message());
    }

    /**
     * A hang leaves {@code for:} alone in the daemon as in a one-shot run: a hang that means
     * sickness by the probe's spec FAILs at once (the daemon never runs a hung probe again, so N runs
     * in a row would never come), and no streak is written (c9944f4: it once passed as "1 of 3").
     */
    @Test
    void aHangThatMeansSicknessFailsAtOnceUnderForInTheDaemon() throws Exception {
        Daemon d = start(write("nhc.yaml", config("  - { name: slow-gpu, use: gpu.test, timeout: 600ms, for: 3 }\n")));
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null);
        CheckResult r = d.verdict().checks().get(0);
        assertEquals(CheckStatus.TIMED_OUT, r.status());
        assertEquals(Severity.FAIL, r.severity(), r.findings().toString());
        Path streaks = dir.resolve("state/rules.slow-gpu.json");
        assertFalse(Files.exists(streaks) && Files.readString(streaks).contains("fail"), "no for: streak counted for a run that saw nothing");
    }

    /**
     * nhc clear while the check runs: that run read the latch before the clear and writes it back
     * after; the daemon clears when it ends, and the check passes on the run after.
     */
    @Test
    void aClearDuringARunOfTheCheckIsNotUndoneByThatRun() throws Exception {
        answer.put("gated-xid", Severity.FAIL);
        Path file = write("nhc.yaml", config("  - { name: gated-xid, use: test.latch-early, every: 1h }\n"));
        Daemon d = start(file);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.verdict() != null && d.verdict().severity() == Severity.FAIL);
        answer.put("gated-xid", Severity.PASS);
        CountDownLatch open = new CountDownLatch(1);
        gate.set(open);
        d.recheckAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("gated-xid") == 2); // in its run, the latch read

        DaemonClient.Reply r = DaemonClient.clear(dir.resolve("run/nhc.sock"), List.of("gated-xid"));
        assertTrue(r.ok(), r.text());
        assertTrue(r.text().contains("gated-xid is running now: cleared when that run ends, then run again"), r.text());
        gate.set(null);
        open.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("gated-xid") == 3 && d.verdict().severity() == Severity.PASS);
        Path section = dir.resolve("state/check.gated-xid.json");
        assertFalse(Files.exists(section) && Files.readString(section).contains("latched"), "the latch stays cleared");
    }

    /** Another check's verdict save must not write a running probe's half-changed state (a moved cursor without its latch). */
    @Test
    void theVerdictIsSavedWithoutTheStateOfAProbeStillRunning() throws Exception {
        CountDownLatch open = new CountDownLatch(1);
        gate.set(open);
        Daemon d = start(write("nhc.yaml", config("""
                  - { name: gated-cursor, use: test.cursor, every: 1h }
                  - { name: fast, use: test.fast }
                """)));
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("gated-cursor") == 1);
        int before = runs("fast");
        Path verdict = dir.resolve("state").resolve(LatestVerdict.SECTION + ".json");
        await().atMost(Duration.ofSeconds(10)).until(() -> runs("fast") >= before + 2 && Files.exists(verdict));
        assertFalse(Files.exists(dir.resolve("state/check.gated-cursor.json")), "nothing of the running probe was written");
        open.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(dir.resolve("state/check.gated-cursor.json"))
                && Files.readString(dir.resolve("state/check.gated-cursor.json")).contains("latched"));
        assertNotNull(d.verdict());
    }

    /** A plugin for these tests: named, wanted by every plan; start and close do nothing unless overridden. */
    private abstract static class TestPlugin implements DaemonPlugin {
        private final String name;

        TestPlugin(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean wanted(Plan plan) {
            return true;
        }

        @Override
        public void start(DaemonContext daemon) {
        }

        @Override
        public void close() {
        }
    }
}
