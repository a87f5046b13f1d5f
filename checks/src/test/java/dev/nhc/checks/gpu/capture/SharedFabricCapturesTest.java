package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuFabric;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.fabric.GpuFabricProbe;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
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
 * gpu.fabric over the shared real nvidia-smi captures (read where they are, never copied in):
 * each capture's Fabric sections judged twice, replayed and through the fake NVML built from the
 * capture, with the same verdict per GPU.
 */
@Tag("fixtures")
class SharedFabricCapturesTest {
    /** Only the GPUs: no unit and no log of the machine running the test. */
    private static final String CHECK = "- name: fabric\n  use: gpu.fabric\n  with: { fabric_manager: ignore, log: none }\n";

    @TempDir
    Path root;

    @AfterAll
    static void close() {
        NvmlSessions.closeAll();
    }

    private Verdict replayed(GpuCapture c) throws Exception {
        return new Pipeline(root, new GpuFabricProbe()).service(GpuSource.class, new CaptureGpuSource(c)).run(CHECK);
    }

    private Verdict throughFakeNvml(GpuCapture c) throws Exception {
        FakeNvml.useRaw(FakeNvmlScenario.json(c));
        return new Pipeline(root, new GpuFabricProbe()).settings("nvml_library: " + FakeNvml.library()).run(CHECK);
    }

    @Test
    void anEightH100CaptureOfDriver535ShowsEveryGpuRegisteredAndPasses() throws Exception {
        GpuCapture c = NvidiaSmiCapture.read(Fixtures.nvidiaSmi("gpud-nvidia-smi-query.535.161.08.out.0.valid.txt"));
        assertTrue(c.provides().contains(GpuData.FABRIC));
        assertEquals(8, c.gpus().size());
        for (CapturedGpu g : c.gpus()) {
            GpuFabric f = g.fabric();
            assertEquals(GpuFabric.State.COMPLETED, f.state(), g.pciBusId());
            assertEquals(true, f.statusOk());
            assertEquals(null, f.health(), "driver 535 prints no health block");
        }
        for (Verdict v : List.of(replayed(c), throughFakeNvml(c))) {
            List<Finding> findings = Pipeline.findings(v, "fabric");
            assertEquals(8, findings.size(), findings.toString());
            assertTrue(findings.stream().allMatch(f -> f.severity() == Severity.PASS), findings.toString());
        }
    }

    @Test
    void everySharedCaptureGetsTheSameFabricVerdictReplayedAndThroughJna() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.list(Fixtures.dir().resolve("nvidia-smi"))) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".txt")).sorted().toList();
        }
        int withFabric = 0;
        for (Path file : files) {
            GpuCapture c = NvidiaSmiCapture.read(file);
            if (!c.gaps().isEmpty()) {
                continue;   // partial captures are SharedCapturesTest's subject
            }
            Verdict replay = replayed(c);
            if (!c.provides().contains(GpuData.FABRIC)) {
                assertEquals(CheckStatus.SKIPPED, Pipeline.result(replay, "fabric").status(), file.toString());
                continue;
            }
            withFabric++;
            Verdict nvml = throughFakeNvml(c);
            assertEquals(Pipeline.severity(replay, "fabric"), Pipeline.severity(nvml, "fabric"), file.toString());
            for (Finding f : Pipeline.findings(replay, "fabric")) {
                assertEquals(f.severity(), Pipeline.about(nvml, "fabric", f.entity().label()).severity(), file + " " + f.entity());
            }
        }
        assertTrue(withFabric > 0, "at least one shared capture has Fabric sections");
    }
}
