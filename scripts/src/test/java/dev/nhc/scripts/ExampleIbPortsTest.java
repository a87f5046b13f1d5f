package dev.nhc.scripts;

import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bundled examples/check-ib-ports.sh through the script probe, over a fake /sys tree, judged as nhc run does. */
class ExampleIbPortsTest {
    @TempDir
    Path root;

    private void port(String dev, int port, String state, String rate) throws Exception {
        Path p = Files.createDirectories(root.resolve("sys/class/infiniband/" + dev + "/ports/" + port));
        Files.writeString(p.resolve("state"), state + "\n");
        Files.writeString(p.resolve("rate"), rate + "\n");
    }

    private List<Finding> run(String args) throws Exception {
        Path script = Path.of("examples/check-ib-ports.sh").toAbsolutePath();
        return Pipeline.findings(new Pipeline(root, new ScriptProbe(() -> false)).run("- name: ib\n  use: script\n  timeout: 20s\n"
                + "  with: { command: [" + script + args + "], env: { NHC_SYSROOT: " + root + " } }\n"), "ib");
    }

    @Test
    void reportsEveryPortWithStateAndRate() throws Exception {
        port("mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)");
        port("mlx5_1", 1, "1: DOWN", "10 Gb/sec (4X SDR)");
        port("mlx5_2", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)");
        List<Finding> f = run(", \"\", \"400\"");
        // the ports as the script reports them, and the script itself: its exit 1 says nothing the port failures do not
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1", "mlx5_2/1", "node"), f.stream().map(x -> x.entity().label()).toList());
        assertEquals(List.of(Severity.PASS, Severity.FAIL, Severity.FAIL, Severity.PASS), f.stream().map(Finding::severity).toList());
        assertEquals("mlx5_1 port 1 is DOWN (expected ACTIVE)", f.get(1).message());
        assertEquals(Remedy.HARDWARE, f.get(1).remedy());
        assertEquals("mlx5_2 port 1 runs at 200 Gb/sec (4X HDR), below 400 Gb/sec", f.get(2).message());
        assertEquals(1L, f.get(3).observed().get("exit_code"));
    }

    @Test
    void oneDeviceOnlyWhenNamed() throws Exception {
        port("mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)");
        port("mlx5_1", 1, "1: DOWN", "10 Gb/sec (4X SDR)");
        List<Finding> f = run(", mlx5_0, \"400\"");
        assertEquals(List.of("mlx5_0/1", "node"), f.stream().map(x -> x.entity().label()).toList());
        assertEquals(List.of(Severity.PASS, Severity.PASS), f.stream().map(Finding::severity).toList());
    }

    @Test
    void noInfinibandIsAFailWithTheReason() throws Exception {
        List<Finding> f = run("");
        assertEquals(1, f.size(), f.toString());
        assertEquals(Severity.FAIL, f.get(0).severity());
        assertEquals("no InfiniBand devices: " + root + "/sys/class/infiniband does not exist (is the HCA driver loaded?)", f.get(0).message());
    }
}
