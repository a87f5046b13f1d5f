package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.Fixtures;
import dev.nhc.checks.host.KernelLogProbe;
import dev.nhc.checks.kernel.KernelLogCapture;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel-log checks judged on the shared real captures (read in place, never copied), the way
 * {@code nhc replay --kernel-log} judges them: the capture replaces the checks' own log source.
 */
@Tag("fixtures")
class GpuXidFixturesTest {
    @TempDir
    Path root;

    private Verdict judge(String file) throws Exception {
        Path capture = Fixtures.dir().resolve("kernel-log").resolve(file).toAbsolutePath();
        assertTrue(Files.isRegularFile(capture), capture + " is missing");
        // The checks read under their system root, as replay does with "/": the captures' directory appears there, read in place.
        Path seen = root.resolve(capture.getParent().toString().substring(1));
        if (!Files.exists(seen)) {
            Files.createDirectories(seen.getParent());
            Files.createSymbolicLink(seen, capture.getParent());
        }
        return new Pipeline(root, new GpuXidProbe(), new KernelLogProbe())
                .settings("nvml_library: " + root.resolve("no-nvml/libnvidia-ml.so.1"))
                .service(KernelLogCapture.class, new KernelLogCapture(capture))
                .run("- { name: xid, use: gpu.xid }\n- { name: klog, use: kernel.log }");
    }

    private static Finding gpu(Verdict v, String pci) {
        return Pipeline.about(v, "xid", "GPU at PCI " + pci + ".0");
    }

    private static Observation kernelLog(Verdict v) {
        return Pipeline.result(v, "xid").observations().stream().filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
    }

    @Test
    void xid48FailsWithResetGpu() throws Exception {
        Finding f = gpu(judge("gpud-dmesg-iso-xid48-63-94.log"), "0000:19:00");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("XID 48") && f.message().contains("XID 63") && f.message().contains("XID 94"), f.message());
    }

    @Test
    void xid119Fails() throws Exception {
        Finding f = gpu(judge("gpud-dmesg-with-xid-119.log"), "0000:9b:00");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("×5"), f.message());
    }

    @Test
    void nvlink5FatalXid149Fails() throws Exception {
        Verdict v = judge("gpud-kmsg-test-xid149-154-nvlink5.log");
        assertEquals(Severity.FAIL, gpu(v, "0009:01:00").severity());
        assertEquals(Severity.FAIL, gpu(v, "0008:01:00").severity());
        assertTrue(gpu(v, "0009:01:00").message().contains("fatal NVLINK: NETIR Error"), gpu(v, "0009:01:00").message());
        // 0019 and 0018 only report 154 with "GPU Reset Required".
        assertEquals(Remedy.RESET_GPU, gpu(v, "0019:01:00").remedy());
    }

    @Test
    void applicationXidsAndOomAreNotANodeFailure() throws Exception {
        Verdict v = judge("gpud-dmesg-decode-iso-xid13-43-oom-short.log");
        assertTrue(Pipeline.findings(v, "xid").stream().noneMatch(f -> f.severity() == Severity.FAIL), Pipeline.findings(v, "xid").toString());
        // 16 XID 13s are the application's; NVIDIA's catalogue says to contact support for XID 43 when it recurs, so it warns.
        assertEquals(16L, kernelLog(v).get("application_xids"));
        assertTrue(Pipeline.findings(v, "xid").stream().anyMatch(f -> f.severity() == Severity.WARN && f.message().contains("XID 43")),
                Pipeline.findings(v, "xid").toString());
        assertEquals(Severity.WARN, Pipeline.severity(v, "klog"), Pipeline.findings(v, "klog").toString());
        assertEquals(Severity.WARN, Pipeline.about(v, "klog", "out of memory").severity());
    }

    @Test
    void everyCaptureIsReadWithItsLinesAccountedFor() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.list(Fixtures.dir().resolve("kernel-log"))) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        assertTrue(!files.isEmpty());
        for (Path f : files) {
            Verdict v = judge(f.getFileName().toString());
            Observation log = kernelLog(v);
            long lines;
            try (Stream<String> s = Files.lines(f)) {
                lines = s.filter(l -> !l.isEmpty()).count();
            }
            assertEquals(lines, log.get("lines_read"), f.toString());
            assertEquals(0L, log.get("unparsed_lines"), f + ": every line of a real capture has a timestamp nhc understands");
            assertTrue(Pipeline.findings(v, "xid").stream().noneMatch(x -> x.severity() == Severity.UNKNOWN), f + ": " + Pipeline.findings(v, "xid"));
        }
    }
}
