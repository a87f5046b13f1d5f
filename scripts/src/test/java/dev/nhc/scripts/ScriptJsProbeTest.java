package dev.nhc.scripts;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.rules.testing.Pipeline;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    /** The one thing the script reported (an observation of what it said about one entity). */
    private static Observation only(ProbeResult r) {
        assertEquals(1, r.observations().size(), r.observations().toString());
        Observation o = r.observations().get(0);
        assertTrue(o.readable(), o.problem());
        return o;
    }

    /** Why the script gave no findings: the check cannot decide for the node. */
    private static String failure(ProbeResult r) {
        assertEquals(1, r.observations().size(), r.observations().toString());
        Observation o = r.observations().get(0);
        assertEquals(Entity.NODE, o.entity());
        assertFalse(o.readable(), o.toString());
        return o.problem();
    }

    @Test
    void bundledThermalPowerRuleJudgesOtherChecksObservations() throws Exception {
        PriorObservations obs = prior(Map.of("gpus", List.of(
                Observation.of(Entity.gpu(0, "00000000:17:00.0")).put("temperature", 91L).put("power", 120.5).build(),
                Observation.of(Entity.gpu(1, "00000000:2A:00.0")).put("temperature", 92L).put("power", 640.0).build(),
                Observation.of(Entity.gpu(2, "00000000:3D:00.0")).put("temperature", 40L).put("power", 90.0).build(),
                Observation.of(Entity.gpu(3, "00000000:63:00.0")).put("temperature", 95L).build())));
        Path example = Path.of("examples/gpu-thermal-power.js").toAbsolutePath();
        TestProbeContext c = ctx(Map.of("file", example.toString(), "vars", Map.of("hot_c", 85L)))
                .service(PriorObservations.class, obs);
        Observation f = only(probe.probe(c));
        assertEquals(Entity.gpu(0, null), f.entity(), "a GPU the script names is that GPU");
        assertEquals("warn", f.get("reported_severity"));
        assertEquals("hardware", f.get("remedy"));
        assertEquals("GPU 0 is at 91C while drawing only 120.5W: check its cooling (fans, airflow, thermal paste)", f.get("message"));
    }

    @Test
    void scriptSeesVarsNodeAndNotItsOwnCheck() throws Exception {
        PriorObservations obs = prior(Map.of("js-rule", List.of(Observation.of(Entity.of(Entity.Kind.OTHER, "x")).put("a", 1L).build()),
                "disk", List.of(Observation.of(Entity.of(Entity.Kind.MOUNT, "/")).put("used_percent", 97.0).build())));
        ProbeResult r = probe.probe(ctx(Map.of("source",
                "[{entity: node, severity: vars.sev, message: JSON.stringify(Object.keys(observations)) + ' ' + observations.disk['/'].used_percent}]",
                "vars", Map.of("sev", "fail"))).service(PriorObservations.class, obs));
        Observation f = only(r);
        assertEquals(Entity.of(Entity.Kind.OTHER, "node001"), f.entity());
        assertEquals("fail", f.get("reported_severity"));
        assertEquals("[\"disk\"] 97", f.get("message"));
    }

    @Test
    void noFindingsWhenTheScriptReturnsNothingOrAnEmptyList() throws Exception {
        assertEquals(List.of(), source("let x = 1;", Map.of()).observations());
        assertEquals(List.of(), source("({findings: []})", Map.of()).observations());
    }

    @Test
    void aScriptThatLoopsForeverIsStoppedAtItsTimeLimit() throws Exception {
        source("1", Map.of()); // the engine's one-time load is not the script's time
        long t0 = System.nanoTime();
        String why = failure(source("while (true) {}", Map.of("timeout", Duration.ofMillis(500))));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5000, "took " + ms + " ms for a 0.5 s limit (+ slack)");
        assertEquals("js-rule.js did not finish within 500ms and was stopped", why);
    }

    @Test
    void readingEtcShadowIsDenied() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/shadow"), "root:$6$secret:19000::::::\n");
        Files.createDirectories(root.resolve("sys/class/infiniband"));
        Map<String, Object> allowSys = Map.of("allow_read", List.of("/sys/class/infiniband"));

        assertEquals("js-rule.js:1:1: access to /etc/shadow denied: not below allow_read", failure(source("readFile('/etc/shadow')", allowSys)));

        String viaDotDot = failure(source("readFile('/sys/class/infiniband/../../../etc/shadow')", allowSys));
        assertTrue(viaDotDot.contains("denied: not below allow_read"), viaDotDot);

        Files.createSymbolicLink(root.resolve("sys/class/infiniband/evil"), root.resolve("etc"));
        String viaSymlink = failure(source("readFile('/sys/class/infiniband/evil/shadow')", allowSys));
        assertTrue(viaSymlink.contains("denied: not below allow_read"), viaSymlink);

        for (String js : List.of("load('/etc/shadow')", "Java.type('java.nio.file.Files')",
                "Polyglot.eval('js', '1')", "require('fs').readFileSync('/etc/shadow')")) {
            String why = failure(source(js, allowSys));
            assertFalse(why.contains("$6$"), why);
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
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1"), r.observations().stream().map(o -> o.entity().label()).toList());
        assertEquals(List.of("pass", "fail"), r.observations().stream().map(o -> o.get("reported_severity")).toList());
        assertEquals("1: DOWN", r.observations().get(1).get("message"));
    }

    @Test
    void syntaxErrorsAndThrownErrorsNameTheScriptAndLine() throws Exception {
        String syntax = failure(source("let x = ;", Map.of()));
        assertTrue(syntax.startsWith("js-rule.js:1:"), syntax);
        String thrown = failure(source("\nthrow new Error('no GPUs observed');", Map.of()));
        assertEquals("js-rule.js:2:7: Error: no GPUs observed", thrown); // where the Error was made
    }

    @Test
    void findingsOfTheWrongShapeAreUnknown() throws Exception {
        assertEquals("js-rule.js returned findings nhc cannot read: finding 1: unknown severity 'bad' (expected pass, warn, fail or unknown)",
                failure(source("[{entity: 'gpu0', severity: 'bad', message: 'x'}]", Map.of())));
        assertEquals("js-rule.js returned findings nhc cannot read: findings must be a list, not a string",
                failure(source("'all good'", Map.of())));
    }

    @Test
    void runsAfterTheOtherChecksSoItSeesTheirObservations() {
        assertTrue(probe.spec().runsLast());
    }

    @Test
    void asRootAScriptFileOthersCanWriteIsRefused() throws Exception {
        Path js = root.resolve("rule.js");
        Files.writeString(js, "[]");
        if (dev.nhc.engine.config.Ownership.runningAsRoot()) {
            Files.setAttribute(js, "unix:uid", 65534);
        }
        String why = failure(new ScriptJsProbe(() -> true).probe(ctx(Map.of("file", js.toString()))));
        assertTrue(why.startsWith("refusing to run " + js + " as root: " + js.toRealPath() + " is owned by uid"), why);
    }

    /** The file is read through the engine's checked, bounded read: a huge file or a FIFO is refused, not read or waited on. */
    @Test
    void aScriptFileIsReadBoundedAndOnlyIfRegular() throws Exception {
        Path big = root.resolve("big.js");
        Files.writeString(big, "[]" + " ".repeat(ScriptJsProbe.MAX_FILE_BYTES));
        assertEquals("script.js file " + big + " is " + Files.size(big) + " bytes; at most " + ScriptJsProbe.MAX_FILE_BYTES + " are read",
                failure(probe.probe(ctx(Map.of("file", big.toString())))));
        Path fifo = root.resolve("rule.fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path link = root.resolve("link.js");
        Files.createSymbolicLink(link, fifo);
        String why = failure(probe.probe(ctx(Map.of("file", link.toString()))));
        assertTrue(why.startsWith("script.js file " + link + " is a FIFO"), why);
        assertEquals("script.js file " + root.resolve("nope.js") + " not found", failure(probe.probe(ctx(Map.of("file", root.resolve("nope.js").toString())))));
    }

    @Test
    void theScriptsFindingsAreJudgedAsItSaysUnlessTheSiteSaysOtherwise() throws Exception {
        String check = """
                - name: js
                  use: script.js
                  timeout: 40s        # a cold GraalJS load on a busy 2-core CI machine takes seconds
                  with:
                    source: |
                      [{entity: 'GPU 1', severity: 'fail', message: 'GPU 1 throttles', remedy: 'reset-gpu'},
                       {entity: 'GPU 2', severity: 'warn', message: 'GPU 2 runs warm'},
                       {severity: 'pass', message: 'all fans spin'}]
                """;
        List<Finding> f = Pipeline.findings(new Pipeline(root, probe).run(check), "js");
        assertEquals(List.of(Entity.gpu(1, null), Entity.gpu(2, null), Entity.NODE), f.stream().map(Finding::entity).toList());
        assertEquals(List.of(Severity.FAIL, Severity.WARN, Severity.PASS), f.stream().map(Finding::severity).toList());
        assertEquals("GPU 1 throttles", f.get(0).message());
        assertEquals(Remedy.RESET_GPU, f.get(0).remedy());
        assertEquals("GPU 2 runs warm", f.get(1).message());

        List<Finding> relaxed = Pipeline.findings(new Pipeline(root, probe).run(check + "  warn: none\n  fail: { reported_severity: fail }\n"), "js");
        assertEquals(List.of(Severity.FAIL, Severity.PASS, Severity.PASS), relaxed.stream().map(Finding::severity).toList());
        assertEquals("GPU 1: reported_severity is 'fail'", relaxed.get(0).message(), "the site's rule, the site's message");
    }

    @Test
    void badParametersAreConfigErrors() {
        Pipeline p = new Pipeline(root, probe);
        for (String[] c : new String[][]{
                {"{ file: rules/x.js }", "must be an absolute path"},
                {"{ source: \"[]\", allow_read: [sys/class] }", "entry 'sys/class' must be an absolute path"},
                {"{ source: \"[]\", timeout: 0s }", "must be longer than 0"},
                {"{ source: \"[]\", vars: 3 }", "must be a map"},
                // across parameters, also at load: once found only when the check ran
                {"{ vars: {} }", "with: give exactly one of 'file' or 'source'"},
                {"{ file: /etc/x.js, source: \"[]\" }", "with: give exactly one of 'file' or 'source'"}}) {
            ConfigException e = assertThrows(ConfigException.class, () -> p.plan("- { name: js, use: script.js, with: " + c[0] + " }"), c[0]);
            assertTrue(e.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*") && e.getMessage().contains(c[1]), c[0] + " → " + e.getMessage());
        }
    }

    private static PriorObservations prior(Map<String, List<Observation>> byCheck) {
        return () -> byCheck;
    }
}
