package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.Fixtures;
import dev.nhc.checks.host.KernelLogProbe;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The live probes pointed at the shared real captures (read in place, never copied). */
@Tag("fixtures")
class GpuXidFixturesTest {
    private ProbeResult xid(String file) throws IOException {
        return run(new GpuXidProbe()::probe, file);
    }

    private interface Runner {
        ProbeResult run(TestProbeContext c) throws Exception;
    }

    private ProbeResult run(Runner probe, String file) throws IOException {
        Path capture = Fixtures.dir().resolve("kernel-log").resolve(file);
        assertTrue(Files.isRegularFile(capture), capture + " is missing");
        // The system root is "/" so that the capture's absolute path is read where it lies.
        TestProbeContext c = new TestProbeContext(Path.of("/")).state(StateSection.detached("s")).checkName("xid")
                .params(Map.of("log", capture.toAbsolutePath().toString(), "since_boot", false));
        try {
            return probe.run(c);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Finding gpu(ProbeResult r, String pci) {
        return r.findings().stream().filter(f -> f.entity().label().equals("GPU at PCI " + pci + ".0")).findFirst()
                .orElseThrow(() -> new AssertionError("no finding for " + pci + " in " + r.findings()));
    }

    private static Severity worst(ProbeResult r) {
        return r.findings().stream().map(Finding::severity).reduce(Severity.PASS, dev.nhc.engine.policy.SeverityPolicy.STANDARD::worst);
    }

    @Test
    void xid48FailsWithResetGpu() throws IOException {
        ProbeResult r = xid("gpud-dmesg-iso-xid48-63-94.log");
        Finding f = gpu(r, "0000:19:00");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("XID 48") && f.message().contains("XID 63") && f.message().contains("XID 94"), f.message());
    }

    @Test
    void xid119Fails() throws IOException {
        ProbeResult r = xid("gpud-dmesg-with-xid-119.log");
        Finding f = gpu(r, "0000:9b:00");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("×5"), f.message());
    }

    @Test
    void nvlink5FatalXid149Fails() throws IOException {
        ProbeResult r = xid("gpud-kmsg-test-xid149-154-nvlink5.log");
        assertEquals(Severity.FAIL, gpu(r, "0009:01:00").severity());
        assertEquals(Severity.FAIL, gpu(r, "0008:01:00").severity());
        assertTrue(gpu(r, "0009:01:00").message().contains("fatal NVLink5 error"), gpu(r, "0009:01:00").message());
        // 0019 and 0018 only report 154 with "GPU Reset Required".
        assertEquals(Remedy.RESET_GPU, gpu(r, "0019:01:00").remedy());
    }

    @Test
    void applicationXidsAndOomAreNotANodeFailure() throws IOException {
        ProbeResult r = xid("gpud-dmesg-decode-iso-xid13-43-oom-short.log");
        assertFalse(dev.nhc.engine.policy.SeverityPolicy.STANDARD.isWorse(worst(r), Severity.WARN), r.findings().toString());
        assertTrue(r.findings().stream().noneMatch(f -> f.severity() == Severity.FAIL));
        Observation log = r.observations().stream().filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
        assertEquals(17L, log.get("application_xids"));

        ProbeResult kl = run(new KernelLogProbe()::probe, "gpud-dmesg-decode-iso-xid13-43-oom-short.log");
        assertEquals(Severity.WARN, worst(kl), kl.findings().toString());
    }

    @Test
    void everyCaptureIsReadWithItsLinesAccountedFor() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(Fixtures.dir().resolve("kernel-log"))) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        assertFalse(files.isEmpty());
        for (Path f : files) {
            ProbeResult r = xid(f.getFileName().toString());
            Observation log = r.observations().stream().filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
            long lines;
            try (Stream<String> s = Files.lines(f)) {
                lines = s.filter(l -> !l.isEmpty()).count();
            }
            assertEquals(lines, log.get("lines_read"), f.toString());
            assertEquals(0L, log.get("unparsed_lines"), f + ": every line of a real capture has a timestamp nhc understands");
            assertTrue(r.findings().stream().noneMatch(x -> x.severity() == Severity.UNKNOWN), f + ": " + r.findings());
        }
    }
}
