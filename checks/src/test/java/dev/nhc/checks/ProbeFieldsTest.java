package dev.nhc.checks;

import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.DeclaredFields;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every probe of this module reports what its spec declares, on a realistic run of each
 * ({@link FieldScenarios}): no undeclared field, none of another type than its unit, and every
 * declared field that is not optional where the probe saw the entity whole. A rule over a declared
 * field that is absent judges {@code unknown}, so a probe that drifted from its spec would make its
 * checks undecided (or, with the field declared optional, silent) without this.
 */
class ProbeFieldsTest {
    @TempDir
    static Path tmp;

    @AfterAll
    static void closeNvml() {
        dev.nhc.checks.gpu.nvml.NvmlSessions.closeAll();
        dev.nhc.checks.gpu.amd.AmdSmiSessions.closeAll();
    }

    static List<FieldScenarios.Scenario> scenarios() {
        return FieldScenarios.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void emitsWhatItDeclares(FieldScenarios.Scenario s) throws Exception {
        ProbeSpec spec = ProbeRegistry.load().find(s.probe()).orElseThrow().spec();
        Path dir = Files.createTempDirectory(tmp, "run");
        CheckResult r = s.run().run(dir);
        assertEquals(CheckStatus.COMPLETED, r.status(), () -> s + ": " + r.note() + " " + r.findings());
        assertTrue(!r.observations().isEmpty(), s + ": observed nothing");
        assertEquals(List.of(), DeclaredFields.problems(spec, r.observations(), s.whole()), s.toString());
        if (s.whole()) {
            for (Finding f : r.findings()) {
                assertNotEquals(Severity.UNKNOWN, f.severity(), () -> s + ": undecided on what it saw whole: " + f);
            }
        }
    }

    /** A PASS says what it compared and the limits: "/: used_percent 41% (fail if > 98%, warn if > 90%)". */
    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void aPassShowsTheLimitsItWasHeldTo(FieldScenarios.Scenario s) throws Exception {
        Path dir = Files.createTempDirectory(tmp, "run");
        for (Finding f : s.run().run(dir).findings()) {
            if (f.severity() == Severity.PASS && !f.message().startsWith("no rule applies")) {
                assertTrue(f.message().contains(" if "), () -> s + ": a PASS that does not say what it compared: " + f.message());
            }
        }
    }

    @Test
    void everyProbeOfThisModuleHasAScenarioThatSeesItWhole() {
        Set<String> registered = new TreeSet<>();
        new BuiltInProbes().register((name, type) -> registered.add(name));
        Set<String> covered = new TreeSet<>();
        scenarios().stream().filter(FieldScenarios.Scenario::whole).forEach(s -> covered.add(s.probe()));
        assertEquals(registered, covered, "a new probe needs a realistic run in FieldScenarios");
    }
}
