package dev.nhc.checks.gpu;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;

/**
 * Both fake GPU libraries as the GPU tests load them: every pipeline and context names the fake
 * NVML ({@code settings.nvml_library}) and the fake AMD SMI ({@code gpu.amd_smi_library}), so
 * that the GPU probes open both, as on a node with both vendors' libraries installed; each test
 * says which vendor's GPUs are there ({@link FakeNvml#use}, {@link FakeAmdSmi#use}, or both).
 */
public final class FakeGpus {

    private FakeGpus() {
    }

    /** These probes on a node whose GPU libraries are the fakes. */
    public static Pipeline pipeline(Path root, Probe... probes) {
        return new Pipeline(root, probes).settings("nvml_library: " + FakeNvml.library())
                .section(new GpuSection(), "amd_smi_library: " + FakeAmdSmi.library());
    }

    /** A probe context on that node. */
    public static TestProbeContext context(Path root) {
        return new TestProbeContext(root).setting("nvml_library", FakeNvml.library())
                .section(GpuSection.KEY, Map.of("amd_smi_library", FakeAmdSmi.library())).budget(Duration.ofSeconds(10));
    }

    /** Both vendors' GPUs on one node. */
    public static void use(Map<String, Object> nvidia, Map<String, Object> amd) throws IOException {
        FakeNvml.use(nvidia);
        FakeAmdSmi.use(amd, false);
    }

    /** Replaces {@code file} whole, so that no reader sees half a scenario. */
    static void write(Path file, String json) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, json);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
