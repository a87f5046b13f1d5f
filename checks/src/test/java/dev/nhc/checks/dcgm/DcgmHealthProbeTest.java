package dev.nhc.checks.dcgm;

import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DcgmHealthProbeTest {
    @TempDir
    Path tmp;

    private final DcgmHealthProbe probe = new DcgmHealthProbe();

    private TestProbeContext ctx(FakeDcgmi fake) {
        return new TestProbeContext(tmp.resolve("root")).params(Map.of("dcgmi", fake.exe.toString(), "watches", "a", "set_watches", true));
    }

    private static Finding only(ProbeResult r) {
        assertEquals(1, r.findings().size(), r.findings().toString());
        return r.findings().get(0);
    }

    @Test
    void healthyDcgmGivesNoFindings() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTHY, null, 0);
        ProbeResult r = probe.probe(ctx(fake));
        assertEquals(List.of(), r.findings());
        assertEquals("Healthy", r.observations().get(0).get("overall_health"));
        assertEquals(List.of("health -c -j"), fake.calls());
    }

    @Test
    void incidentsBecomeFindingsPerGpuAndSystemWithDcgmsMessage() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.UNHEALTHY, null, 0);
        ProbeResult r = probe.probe(ctx(fake));
        assertEquals(3, r.findings().size(), r.findings().toString());
        Finding pcie = r.findings().get(0);
        assertEquals("gpu1", pcie.entity());
        assertEquals(Severity.WARN, pcie.severity());
        assertEquals("DCGM PCIe system: warning: Detected more than 8 PCIe replays per minute for GPU 1 : 13 Reconnect PCIe card. "
                + "Run system side PCIE diagnostic utilities to verify hardware is healthy.", pcie.message());
        Finding mem = r.findings().get(1);
        assertEquals("gpu3", mem.entity());
        assertEquals(Severity.FAIL, mem.severity());
        assertEquals(Remedy.RESET_GPU, mem.remedy());
        assertTrue(mem.message().contains("Memory system: failure: A volatile double-bit ECC error"), mem.message());
        Finding sw = r.findings().get(2);
        assertEquals("nvswitch0", sw.entity());
        assertEquals(Severity.WARN, sw.severity());
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
        ProbeResult r = probe.probe(ctx(fake).params(Map.of("dcgmi", fake.exe.toString(), "watches", "pmi", "set_watches", true)));
        assertEquals(List.of(), r.findings());
        assertEquals(List.of("health -c -j", "health -s pmi", "health -c -j"), fake.calls());
    }

    @Test
    void withoutPermissionToSetWatchesItIsUnknownAndSaysWhatToRun() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("printf '" + DcgmTestData.NO_WATCHES.strip() + "\\n'; exit 255");
        ProbeResult r = probe.probe(ctx(fake).params(Map.of("dcgmi", fake.exe.toString(), "watches", "a", "set_watches", false)));
        Finding f = only(r);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("dcgmi health -s a"), f.message());
        assertEquals(List.of("health -c -j"), fake.calls());
    }

    @Test
    void watchLettersAreCheckedBeforeDcgmiSeesThem() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("printf '" + DcgmTestData.NO_WATCHES.strip() + "\\n'; exit 255");
        Finding f = only(probe.probe(ctx(fake).params(Map.of("dcgmi", fake.exe.toString(), "watches", "-x", "set_watches", true))));
        assertEquals("with: { watches: '-x' } must be dcgmi health -s letters from p m i d t n x a", f.message());
        assertEquals(List.of("health -c -j"), fake.calls());
    }

    @Test
    void missingDcgmiIsUnknownAndSaysWhatToInstall() throws Exception {
        ProbeResult r = probe.probe(new TestProbeContext(tmp).params(Map.of("dcgmi", "/nonexistent/dcgmi")));
        Finding f = only(r);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("dcgmi not found at /nonexistent/dcgmi (from with: { dcgmi }): " + Dcgmi.INSTALL_HINT, f.message());
    }

    @Test
    void dcgmiPathComesFromSettingsWhenTheCheckDoesNotSayIt() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers(DcgmTestData.HEALTHY, null, 0);
        ProbeResult r = probe.probe(new TestProbeContext(tmp).params(Map.of("watches", "a", "set_watches", true))
                .setting("dcgmi", fake.exe.toString()));
        assertEquals(List.of(), r.findings());
        assertEquals(1, fake.calls().size());
    }

    @Test
    void hostEngineNotRunningIsUnknownAndSaysHowToStartIt() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("printf '" + DcgmTestData.ENGINE_DOWN.replace("\n", "\\n") + "'; exit 255");
        Finding f = only(probe.probe(ctx(fake)));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("DCGM host engine is not reachable (dcgmi: Error: unable to establish a connection"), f.message());
        assertTrue(f.message().endsWith(Dcgmi.START_HINT), f.message());
    }

    @Test
    void malformedJsonIsUnknownNamingTheLine() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers("{\n  \"body\": {\n    \"Overall Health\": {\"value\": \"Healthy\",,}\n", null, 0);
        Finding f = only(probe.probe(ctx(fake)));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("cannot parse dcgmi health -c -j output at line 3, column "), f.message());
    }

    @Test
    void jsonOfAnotherShapeIsUnknown() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).answers("{\"DCGM GPU Diagnostic\": {}}", null, 0);
        Finding f = only(probe.probe(ctx(fake)));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("expected an object with \"body\""), f.message());
    }

    @Test
    void silentDcgmiIsUnknown() throws Exception {
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("echo 'segfault in libdcgm' >&2; exit 139");
        Finding f = only(probe.probe(ctx(fake)));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("dcgmi health -c -j printed nothing (exit code 139, stderr: segfault in libdcgm)", f.message());
    }

    @Test
    void hangingDcgmiIsKilledWithItsChildrenWithinTheCheckTimeout() throws Exception {
        Path pidFile = tmp.resolve("child.pid");
        FakeDcgmi fake = new FakeDcgmi(tmp.resolve("bin")).script("sleep 600 & echo $! > '" + pidFile + "'; wait");
        long t0 = System.nanoTime();
        ProbeResult r = probe.probe(ctx(fake).budget(Duration.ofSeconds(2)));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "took longer than the 2 s budget + 3 s slack");
        Finding f = only(r);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("did not answer within"), f.message());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void replayJudgesTheCaptureAndNeverRunsDcgmi() throws Exception {
        TestProbeContext c = new TestProbeContext(tmp).params(Map.of("dcgmi", "/nonexistent/dcgmi"))
                .service(DcgmiOutputs.class, new DcgmiOutputs(DcgmTestData.UNHEALTHY, null, "health.json", null));
        ProbeResult r = probe.probe(c);
        assertEquals(3, r.findings().size());
        assertEquals(Severity.FAIL, r.findings().get(1).severity());
    }

    @Test
    void replayWithoutAHealthCaptureIsSkipped() throws Exception {
        TestProbeContext c = new TestProbeContext(tmp).service(DcgmiOutputs.class, new DcgmiOutputs(null, DcgmTestData.DIAG_V4_PASS, null, "d"));
        ProbeResult r = probe.probe(c);
        assertEquals("replay has no dcgmi health capture (--dcgmi-health-json)", r.skipped());
    }
}
