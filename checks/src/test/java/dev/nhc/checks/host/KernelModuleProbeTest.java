package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelModuleProbeTest {
    @TempDir
    Path root;
    private TestProbeContext ctx;

    @BeforeEach
    void tree() throws Exception {
        ctx = new TestProbeContext(root);
        ctx.write("/proc/modules", "nvidia_uvm 1945600 4 - Live 0x0000000000000000 (POE)\n"
                + "nvidia 56733696 520 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
                + "ib_core 466944 8 - Unloading 0x0000000000000000\n");
        ctx.write("/sys/module/nvidia/initstate", "live\n");
        Files.createDirectories(root.resolve("sys/module/ext4/parameters")); // built in: no initstate
    }

    private ProbeResult run(Map<String, Object> with) {
        return new KernelModuleProbe().probe(ctx.params(with));
    }

    @Test
    void loadedModulePassesWithRefcount() {
        ProbeResult r = run(Map.of("name", "nvidia-uvm"));
        assertTrue(r.findings().isEmpty());
        assertEquals(true, r.observations().get(0).get("loaded"));
        assertEquals(4L, r.observations().get(0).get("refcount"));
    }

    @Test
    void builtInCounts() {
        ProbeResult r = run(Map.of("name", "ext4"));
        assertTrue(r.findings().isEmpty());
        assertEquals(true, r.observations().get(0).get("builtin"));
    }

    @Test
    void missingUnloadingAndUnwanted() {
        Finding f = run(Map.of("name", "nvidia_peermem")).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("kernel module nvidia_peermem is not loaded", f.message());
        assertEquals(Severity.WARN, run(Map.of("name", "ib_core")).findings().get(0).severity());
        assertEquals(Severity.FAIL, run(Map.of("name", "nvidia", "loaded", false)).findings().get(0).severity());
        assertTrue(run(Map.of("name", "nouveau", "loaded", false)).findings().isEmpty());
    }

    @Test
    void noModuleInformationAtAllIsUnknown(@TempDir Path empty) {
        Finding f = new KernelModuleProbe().probe(new TestProbeContext(empty).params(Map.of("name", "nvidia"))).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
    }
}
