package dev.nhc.checks.dcgm;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dcgm.health judged as {@code nhc run} judges it, against a real executable standing in for dcgmi. */
class DcgmHealthProbeTest {
    @TempDir
    Path tmp;

    private final DcgmHealthProbe probe = new DcgmHealthProbe();

    private Pipeline pipeline() throws Exception {
        Files.createDirectories(tmp.resolve("root"));
        return new Pipeline(tmp.resolve("root"), probe);
    }

    private Verdict run(FakeDcgmi fake) throws Exception {
        return run(fake, "");
    }

    private Verdict run(FakeDcgmi fake, String moreWith) throws Exception {
        return pipeline().run("- { name: dcgm, use: dcgm.health, with: { dcgmi: " + fake.exe + moreWith + " } }");
    }

    private static List<Finding> problems(Verdict v) {
        return Pipeline.findings(v, "dcgm").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    private static Finding only(Verdict v) {
        List<Finding> p = problems(v);
        assertEquals(1, p.size(), Pipeline.findings(v, "dcgm").toString());
        return p.get(0);
    }

    @Test
    void healthyDcgmPasses() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTHY, null, 0);
        Verdict v = run(fake);
        assertEquals(Severity.PASS, Pipeline.severity(v, "dcgm"));
        Finding node = Pipeline.only(v, "dcgm");
        assertEquals(Entity.NODE, node.entity());
        assertEquals("Healthy", Pipeline.result(v, "dcgm").observations().get(0).get("overall_health"));
        assertEquals(0L, Pipeline.result(v, "dcgm").observations().get(0).get("overall"));
        assertEquals(List.of("health -c -j"), fake.calls());
    }

    @Test
    void incidentsAreJudgedPerGpuWithDcgmsMessage() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.UNHEALTHY, null, 0);
        Verdict v = run(fake);
        assertEquals(Severity.FAIL, Pipeline.severity(v, "dcgm"));
        Finding pcie = Pipeline.about(v, "dcgm", "GPU 1");
        assertEquals(Severity.WARN, pcie.severity());
        assertEquals(1, pcie.entity().gpuIndex().orElseThrow());
        assertEquals("GPU 1: DCGM PCIe system: warning: Detected more than 8 PCIe replays per minute for GPU 1 : 13 Reconnect PCIe card. "
                + "Run system side PCIE diagnostic utilities to verify hardware is healthy.", pcie.message());
        Finding mem = Pipeline.about(v, "dcgm", "GPU 3");
        assertEquals(Severity.FAIL, mem.severity());
        assertEquals(Remedy.RESET_GPU, mem.remedy());
        assertEquals("GPU 3: DCGM Memory system: failure: A volatile double-bit ECC error has occurred on GPU 3.", mem.message());
        Finding sw = Pipeline.about(v, "dcgm", "NVSwitch 0");
        assertEquals(Severity.WARN, sw.severity());
        assertEquals(Entity.Kind.NVSWITCH, sw.entity().kind());
        // The node itself: DCGM named the GPUs, so its overall Failure is not a second finding.
        assertEquals(Severity.PASS, Pipeline.about(v, "dcgm", "node").severity());
    }

    @Test
    void oneGpuWithTwoSystemsIsJudgedByTheWorstAndNamesBoth() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTH_TWO_SYSTEMS, null, 0);
        Finding f = only(run(fake));
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertEquals("GPU 3: DCGM Memory system: failure: A volatile double-bit ECC error has occurred on GPU 3.; "
                + "PCIe system: warning: Detected more than 8 PCIe replays per minute for GPU 3 : 40", f.message());
        assertEquals(20L, f.observed().get("health"));
    }

    @Test
    void aSystemDcgmCannotJudgeIsUnknown() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTH_INTERNAL_ERROR, null, 0);
        Finding f = only(run(fake));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("GPU 2: DCGM could not judge: Internal error: internal error: Unable to read the health of GPU 2", f.message());
    }

    @Test
    void anOverallFailureWithoutAnIncidentStillFails() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTH_OVERALL_ONLY, null, 0);
        Finding f = only(run(fake));
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("DCGM reports overall health Failure without naming a GPU or system", f.message());
    }

    @Test
    void setsTheWatchesWhenNoneAreSetAndAsksAgain() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin"));
        Files.writeString(fake.dir.resolve("health.out"), DcgmTestData.HEALTHY);
        Path marker = fake.dir.resolve("watches");
        fake.script("case \"$1 $2\" in\n"
                + " 'health -s') touch '" + marker + "'; echo 'Health monitor systems set successfully.' ;;\n"
                + " 'health -c') if [ -e '" + marker + "' ]; then cat '" + fake.dir.resolve("health.out") + "'; "
                + "else printf '" + DcgmTestData.NO_WATCHES.strip() + "\\n'; exit 255; fi ;;\n"
                + "esac");
        Verdict v = run(fake, ", watches: pmi");
        assertEquals(Severity.PASS, Pipeline.severity(v, "dcgm"));
        assertEquals(List.of("health -c -j", "health -s pmi", "health -c -j"), fake.calls());
    }

    @Test
    void withoutPermissionToSetWatchesItIsUnknownAndSaysWhatToRun() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("printf '" + DcgmTestData.NO_WATCHES.strip() + "\\n'; exit 255");
        Finding f = only(run(fake, ", set_watches: false"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("dcgmi health -s a"), f.message());
        assertEquals(List.of("health -c -j"), fake.calls());
    }

    /** Was UNKNOWN at run time; now the config does not load, and dcgmi never sees the letters. */
    @Test
    void watchLettersAndARelativeDcgmiAreConfigErrorsWithTheirPlace() throws Exception {
        ConfigException letters = assertThrows(ConfigException.class,
                () -> pipeline().plan("- { name: dcgm, use: dcgm.health, with: { watches: \"-x\" } }"));
        assertTrue(letters.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'watches' in .*must be dcgmi health -s letters "
                + "from p m i d t n x a, not '-x'"), letters.problems().toString());
        ConfigException path = assertThrows(ConfigException.class,
                () -> pipeline().plan("- { name: dcgm, use: dcgm.health, with: { dcgmi: bin/dcgmi } }"));
        assertTrue(path.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'dcgmi' in .*must be an absolute path, not 'bin/dcgmi'"),
                path.problems().toString());
    }

    @Test
    void missingDcgmiIsUnknownAndSaysWhatToInstall() throws Exception {
        Finding f = only(pipeline().run("- { name: dcgm, use: dcgm.health, with: { dcgmi: /nonexistent/dcgmi } }"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals(Entity.NODE, f.entity());
        assertEquals("dcgmi not found at /nonexistent/dcgmi (from with: { dcgmi }): " + Dcgmi.INSTALL_HINT, f.message());
    }

    @Test
    void dcgmiPathComesFromSettingsWhenTheCheckDoesNotSayIt() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTHY, null, 0);
        Verdict v = pipeline().settings("dcgmi: " + fake.exe).run("- { name: dcgm, use: dcgm.health }");
        assertEquals(Severity.PASS, Pipeline.severity(v, "dcgm"));
        assertEquals(1, fake.calls().size());
    }

    @Test
    void hostEngineNotRunningIsUnknownAndSaysHowToStartIt() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("printf '" + DcgmTestData.ENGINE_DOWN.replace("\n", "\\n") + "'; exit 255");
        Finding f = only(run(fake));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("DCGM host engine is not reachable (dcgmi: Error: unable to establish a connection"), f.message());
        assertTrue(f.message().endsWith(Dcgmi.START_HINT), f.message());
    }

    @Test
    void malformedJsonIsUnknownNamingTheLine() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers("{\n  \"body\": {\n    \"Overall Health\": {\"value\": \"Healthy\",,}\n", null, 0);
        Finding f = only(run(fake));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("cannot parse dcgmi health -c -j output at line 3, column "), f.message());
    }

    @Test
    void jsonOfAnotherShapeIsUnknown() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers("{\"DCGM GPU Diagnostic\": {}}", null, 0);
        Finding f = only(run(fake));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("expected an object with \"body\""), f.message());
    }

    @Test
    void silentDcgmiIsUnknown() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("echo 'segfault in libdcgm' >&2; exit 139");
        Finding f = only(run(fake));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("dcgmi health -c -j printed nothing (exit code 139, stderr: segfault in libdcgm)", f.message());
    }

    @Test
    void hangingDcgmiIsKilledWithItsChildrenWithinTheCheckTimeout() throws Exception {
        Path pidFile = tmp.resolve("child.pid");
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("sleep 600 & echo $! > '" + pidFile + "'; wait");
        long t0 = System.nanoTime();
        ProbeResult r = probe.probe(new TestProbeContext(tmp.resolve("root")).with(probe.spec(), "{ dcgmi: " + fake.exe + " }")
                .budget(Duration.ofSeconds(2)));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "took longer than the 2 s budget + 3 s slack");
        Observation node = r.observations().get(0);
        assertEquals(Entity.NODE, node.entity());
        assertTrue(node.problem().contains("did not answer within"), node.problem());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void replayJudgesTheCaptureAndNeverRunsDcgmi() throws Exception {
        Verdict v = pipeline().service(DcgmiOutputs.class, new DcgmiOutputs(DcgmTestData.UNHEALTHY, null, "health.json", null))
                .run("- { name: dcgm, use: dcgm.health, with: { dcgmi: /nonexistent/dcgmi } }");
        assertEquals(3, problems(v).size(), Pipeline.findings(v, "dcgm").toString());
        assertEquals(Severity.FAIL, Pipeline.about(v, "dcgm", "GPU 3").severity());
    }

    @Test
    void replayWithoutAHealthCaptureIsSkipped() throws Exception {
        Verdict v = pipeline().service(DcgmiOutputs.class, new DcgmiOutputs(null, DcgmTestData.DIAG_V4_PASS, null, "d"))
                .run("- { name: dcgm, use: dcgm.health }");
        assertEquals("replay has no dcgmi health capture (--dcgmi-health-json)", Pipeline.result(v, "dcgm").note());
    }

    @Test
    void itObservesDcgmsNumbersAndWords() throws Exception {
        ProbeResult r = probe.probe(new TestProbeContext(tmp).service(DcgmiOutputs.class,
                new DcgmiOutputs(DcgmTestData.UNHEALTHY, null, "health.json", null)));
        Observation gpu3 = r.observations().stream().filter(o -> o.entity().label().equals("GPU 3")).findFirst().orElseThrow();
        assertEquals(20L, gpu3.get("health"));
        assertEquals("Failure", gpu3.get("status"));
        assertEquals("Memory system", gpu3.get("systems"));
        assertEquals("reset-gpu", gpu3.get("remedy"));
        Observation node = r.observations().get(0);
        assertEquals(20L, node.get("overall"));
        assertEquals(3L, node.get("incidents"));
    }
}
