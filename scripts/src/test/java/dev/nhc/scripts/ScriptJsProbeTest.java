package dev.nhc.scripts;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScriptJsProbeTest {
    @TempDir
    Path root;

    private final ScriptJsProbe probe = new ScriptJsProbe(() -> false);

    private TestProbeContext ctx(Map<String, Object> with) {
        Map<String, Object> p = new HashMap<>(Map.of("allow_read", List.of(), "timeout", Duration.ofSeconds(5)));
        p.putAll(with);
        return new TestProbeContext(root).checkName("js-rule").params(p);
    }

    private ProbeResult source(String js, Map<String, Object> with) throws Exception {
        Map<String, Object> p = new HashMap<>(with);
        p.put("source", js);
        return probe.probe(ctx(p));
    }

    private static Finding only(ProbeResult r) {
        assertEquals(1, r.findings().size(), r.findings().toString());
        return r.findings().get(0);
    }

    @Test
    void bundledThermalPowerRuleJudgesOtherChecksObservations() throws Exception {
        PriorObservations obs = prior(Map.of("gpus", List.of(
                Observation.of("gpu0").put("temperature", 91L).put("power", 120.5).build(),
                Observation.of("gpu1").put("temperature", 92L).put("power", 640.0).build(),
                Observation.of("gpu2").put("temperature", 40L).put("power", 90.0).build(),
                Observation.of("gpu3").put("temperature", 95L).build())));
        Path example = Path.of("examples/gpu-thermal-power.js").toAbsolutePath();
        TestProbeContext c = ctx(Map.of("file", example.toString(), "vars", Map.of("hot_c", 85L)))
                .service(PriorObservations.class, obs);
        Finding f = only(probe.probe(c));
        assertEquals("gpu0", f.entity());
        assertEquals(Severity.WARN, f.severity());
        assertEquals(Remedy.HARDWARE, f.remedy());
        assertEquals("gpu0 is at 91C while drawing only 120.5W: check its cooling (fans, airflow, thermal paste)", f.message());
    }

    @Test
    void scriptSeesVarsNodeAndNotItsOwnCheck() throws Exception {
        PriorObservations obs = prior(Map.of("js-rule", List.of(Observation.of("x").put("a", 1L).build()),
                "disk", List.of(Observation.of("/").put("used_percent", 97.0).build())));
        ProbeResult r = probe.probe(ctx(Map.of("source",
                "[{entity: node, severity: vars.sev, message: JSON.stringify(Object.keys(observations)) + ' ' + observations.disk['/'].used_percent}]",
                "vars", Map.of("sev", "fail"))).service(PriorObservations.class, obs));
        Finding f = only(r);
        assertEquals("node001", f.entity());
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("[\"disk\"] 97", f.message());
    }

    @Test
    void noFindingsWhenTheScriptReturnsNothingOrAnEmptyList() throws Exception {
        assertEquals(List.of(), source("let x = 1;", Map.of()).findings());
        assertEquals(List.of(), source("({findings: []})", Map.of()).findings());
    }

    @Test
    void aScriptThatLoopsForeverIsStoppedAtItsTimeLimit() throws Exception {
        source("1", Map.of()); // the engine's one-time load is not the script's time
        long t0 = System.nanoTime();
        Finding f = only(source("while (true) {}", Map.of("timeout", Duration.ofMillis(500))));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5000, "took " + ms + " ms for a 0.5 s limit (+ slack)");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("js-rule.js did not finish within 0.5 s and was stopped", f.message());
    }

    @Test
    void readingEtcShadowIsDenied() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/shadow"), "root:$6$secret:19000::::::\n");
        Files.createDirectories(root.resolve("sys/class/infiniband"));
        Map<String, Object> allowSys = Map.of("allow_read", List.of("/sys/class/infiniband"));

        Finding viaReadFile = only(source("readFile('/etc/shadow')", allowSys));
        assertEquals(Severity.UNKNOWN, viaReadFile.severity());
        assertEquals("js-rule.js:1:1: access to /etc/shadow denied: not below allow_read", viaReadFile.message());

        Finding viaDotDot = only(source("readFile('/sys/class/infiniband/../../../etc/shadow')", allowSys));
        assertTrue(viaDotDot.message().contains("denied: not below allow_read"), viaDotDot.message());

        Files.createSymbolicLink(root.resolve("sys/class/infiniband/evil"), root.resolve("etc"));
        Finding viaSymlink = only(source("readFile('/sys/class/infiniband/evil/shadow')", allowSys));
        assertTrue(viaSymlink.message().contains("denied: not below allow_read"), viaSymlink.message());

        for (String js : List.of("load('/etc/shadow')", "Java.type('java.nio.file.Files')",
                "Polyglot.eval('js', '1')", "require('fs').readFileSync('/etc/shadow')")) {
            Finding f = only(source(js, allowSys));
            assertEquals(Severity.UNKNOWN, f.severity(), js);
            assertFalse(f.message().contains("$6$"), f.message());
        }
    }

    @Test
    void anAllowedPathCanBeReadAndListed() throws Exception {
        Path port = Files.createDirectories(root.resolve("sys/class/infiniband/mlx5_0/ports/1"));
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Path port2 = Files.createDirectories(root.resolve("sys/class/infiniband/mlx5_1/ports/1"));
        Files.writeString(port2.resolve("state"), "1: DOWN\n");
        String js = """
                const base = '/sys/class/infiniband';
                listDir(base).flatMap(dev => listDir(`${base}/${dev}/ports`).map(p => {
                  const state = readFile(`${base}/${dev}/ports/${p}/state`).trim();
                  return {entity: `${dev}/${p}`, severity: state.endsWith('ACTIVE') ? 'pass' : 'fail', message: state};
                }));
                """;
        ProbeResult r = source(js, Map.of("allow_read", List.of("/sys/class/infiniband")));
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1"), r.findings().stream().map(Finding::entity).toList());
        assertEquals(List.of(Severity.PASS, Severity.FAIL), r.findings().stream().map(Finding::severity).toList());
        assertEquals("1: DOWN", r.findings().get(1).message());
    }

    @Test
    void syntaxErrorsAndThrownErrorsNameTheScriptAndLine() throws Exception {
        Finding syntax = only(source("let x = ;", Map.of()));
        assertEquals(Severity.UNKNOWN, syntax.severity());
        assertTrue(syntax.message().startsWith("js-rule.js:1:"), syntax.message());
        Finding thrown = only(source("\nthrow new Error('no GPUs observed');", Map.of()));
        assertEquals("js-rule.js:2:7: Error: no GPUs observed", thrown.message()); // where the Error was made
    }

    @Test
    void findingsOfTheWrongShapeAreUnknown() throws Exception {
        Finding f = only(source("[{entity: 'gpu0', severity: 'bad', message: 'x'}]", Map.of()));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("js-rule.js returned findings nhc cannot read: finding 1: unknown severity 'bad' (expected pass, warn, fail or unknown)",
                f.message());
        assertEquals("js-rule.js returned findings nhc cannot read: findings must be a list, not a string",
                only(source("'all good'", Map.of())).message());
    }

    @Test
    void runsAfterTheOtherChecksSoItSeesTheirObservations() {
        assertTrue(probe.spec().runsLast());
    }

    @Test
    void needsExactlyOneOfFileOrSource() throws Exception {
        assertEquals("script.js needs exactly one of 'file' or 'source' in with:", only(probe.probe(ctx(Map.of()))).message());
    }

    @Test
    void asRootAScriptFileOthersCanWriteIsRefused() throws Exception {
        Path js = root.resolve("rule.js");
        Files.writeString(js, "[]");
        if (dev.nhc.engine.config.Ownership.runningAsRoot()) {
            Files.setAttribute(js, "unix:uid", 65534);
        }
        Finding f = only(new ScriptJsProbe(() -> true).probe(ctx(Map.of("file", js.toString()))));
        assertTrue(f.message().startsWith("refusing to run " + js + " as root: " + js.toRealPath() + " is owned by uid"), f.message());
    }

    private static PriorObservations prior(Map<String, List<Observation>> byCheck) {
        return () -> byCheck;
    }
}
