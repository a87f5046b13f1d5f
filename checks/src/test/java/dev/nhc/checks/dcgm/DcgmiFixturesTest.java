package dev.nhc.checks.dcgm;

import dev.nhc.model.CheckResult;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every real dcgmi capture in ../shared/fixtures/dcgmi through the live probes (a fake dcgmi
 * that prints the capture) and through replay (the capture given as {@link DcgmiOutputs}), judged
 * as {@code nhc run} judges them.
 */
@Tag("fixtures")
class DcgmiFixturesTest {
    @TempDir
    Path tmp;

    /** What each capture must give; a capture added to the directory without an entry here fails {@link #everyCaptureHasAnExpectation}. */
    static final Map<String, Expectation> EXPECTED = Map.of(
            "virtualclient-DCGMIHealthCheckResults.json", new Expectation(false, Expectation::passes),
            "virtualclient-DCGMIDiag_r1_results.json", new Expectation(true, Expectation::passes),
            "virtualclient-DCGMIDiag_r2_results.json", new Expectation(true, Expectation::passes),
            "virtualclient-DCGMIDiag_r3_results.json", new Expectation(true, Expectation::passes),
            "awsome-p4de-dcgmi-diag-r2-nvlinks12.txt", new Expectation(true, Expectation::passes),
            "dcgm-issue254-dcgm441-v100-diag-r2-pcie-fail.txt", new Expectation(true, DcgmiFixturesTest::pcieFails),
            "virtualclient-DCGMIIncorrectresults.json", new Expectation(true, DcgmiFixturesTest::unreadable));

    record Expectation(boolean diag, Consumer<CheckResult> check) {
        static void passes(CheckResult r) {
            assertNull(r.note());
            assertEquals(Severity.PASS, r.severity(), r.findings().toString());
            assertTrue(!r.observations().isEmpty());
        }
    }

    private static List<Finding> problems(CheckResult r) {
        return r.findings().stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    /** The capture was pasted cut short (its table has no closing border): the failed test is judged, and the rest is said to be missing. */
    static void pcieFails(CheckResult r) {
        assertEquals(Severity.FAIL, r.severity(), r.findings().toString());
        List<Finding> fails = problems(r).stream().filter(f -> f.severity() == Severity.FAIL).toList();
        assertEquals(1, fails.size(), r.findings().toString());
        assertTrue(problems(r).stream().anyMatch(f -> f.severity() == Severity.UNKNOWN && f.message().contains("is partial")),
                r.findings().toString());
        Finding f = fails.get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Entity.NODE, f.entity());
        assertEquals("DCGM diag level 2: test 'pcie' failed: There was an internal error during the test: 'A child process (2378806) "
                + "exited with non-zero status 1' Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics.",
                f.message());
    }

    /** The top key holds a list instead of an object: nhc says it cannot read it rather than guess a verdict. */
    static void unreadable(CheckResult r) {
        assertEquals(1, problems(r).size(), r.findings().toString());
        Finding f = problems(r).get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().matches("cannot parse .* at line 2: \"DCGM GPU Diagnostic\" holds a list where dcgmi writes an object "
                + "with \"test_categories\""), f.message());
    }

    static Stream<Arguments> captures() throws IOException {
        try (Stream<Path> s = Files.list(SharedFixtures.dir().resolve("dcgmi"))) {
            return s.sorted().map(p -> Arguments.of(p.getFileName().toString(), p)).toList().stream();
        }
    }

    @Test
    void everyCaptureHasAnExpectation() throws IOException {
        TreeSet<String> files = new TreeSet<>();
        captures().forEach(a -> files.add((String) a.get()[0]));
        assertEquals(new TreeSet<>(EXPECTED.keySet()), files);
    }

    @ParameterizedTest(name = "{0} through the live probe")
    @MethodSource("captures")
    void liveProbeWithAFakeDcgmi(String name, Path capture) throws Exception {
        Expectation e = EXPECTED.get(name);
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).catting(capture);
        Files.createDirectories(tmp.resolve("root/proc"));
        String check = e.diag() ? "- { name: c, use: dcgm.diag, with: { dcgmi: " + fake.exe + ", level: 2, ignore_processes: [] } }"
                : "- { name: c, use: dcgm.health, with: { dcgmi: " + fake.exe + " } }";
        Verdict v = new Pipeline(tmp.resolve("root"), new DcgmDiagProbe(), new DcgmHealthProbe()).run(check);
        e.check().accept(Pipeline.result(v, "c"));
        assertEquals(1, fake.calls().size());
    }

    @ParameterizedTest(name = "{0} through replay")
    @MethodSource("captures")
    void replayOfTheCapture(String name, Path capture) throws Exception {
        Expectation e = EXPECTED.get(name);
        DcgmiOutputs outputs = e.diag() ? DcgmiOutputs.read(null, capture) : DcgmiOutputs.read(capture, null);
        String check = e.diag() ? "- { name: c, use: dcgm.diag, with: { level: 2 } }" : "- { name: c, use: dcgm.health }";
        Verdict v = new Pipeline(tmp, new DcgmDiagProbe(), new DcgmHealthProbe()).service(DcgmiOutputs.class, outputs).run(check);
        e.check().accept(Pipeline.result(v, "c"));
    }
}
