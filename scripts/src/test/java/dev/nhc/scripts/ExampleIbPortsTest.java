package dev.nhc.scripts;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bundled examples/check-ib-ports.sh through the script probe, over a fake /sys tree. */
class ExampleIbPortsTest {
    @TempDir
    Path root;

    private void port(String dev, int port, String state, String rate) throws Exception {
        Path p = Files.createDirectories(root.resolve("sys/class/infiniband/" + dev + "/ports/" + port));
        Files.writeString(p.resolve("state"), state + "\n");
        Files.writeString(p.resolve("rate"), rate + "\n");
    }

    private ProbeResult run(String... args) throws Exception {
        Path script = Path.of("examples/check-ib-ports.sh").toAbsolutePath();
        List<String> command = new java.util.ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        return new ScriptProbe(() -> false).probe(new TestProbeContext(root).params(Map.of("command", command,
                "convention", "nhc", "env", Map.of("NHC_SYSROOT", root.toString()), "max_output", 65536L)));
    }

    @Test
    void reportsEveryPortWithStateAndRate() throws Exception {
        port("mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)");
        port("mlx5_1", 1, "1: DOWN", "10 Gb/sec (4X SDR)");
        port("mlx5_2", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)");
        ProbeResult r = run("", "400");
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1", "mlx5_2/1"), r.findings().stream().map(Finding::entity).toList());
        assertEquals(List.of(Severity.PASS, Severity.FAIL, Severity.FAIL), r.findings().stream().map(Finding::severity).toList());
        assertEquals("mlx5_1 port 1 is DOWN (expected ACTIVE)", r.findings().get(1).message());
        assertEquals("mlx5_2 port 1 runs at 200 Gb/sec (4X HDR), below 400 Gb/sec", r.findings().get(2).message());
        assertEquals(1L, r.observations().get(0).get("exit_code"));
    }

    @Test
    void oneDeviceOnlyWhenNamed() throws Exception {
        port("mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)");
        port("mlx5_1", 1, "1: DOWN", "10 Gb/sec (4X SDR)");
        ProbeResult r = run("mlx5_0", "400");
        assertEquals(List.of(Severity.PASS), r.findings().stream().map(Finding::severity).toList());
    }

    @Test
    void noInfinibandIsAFailWithTheReason() throws Exception {
        Finding f = run().findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("no InfiniBand devices: " + root + "/sys/class/infiniband does not exist (is the HCA driver loaded?)", f.message());
    }
}
