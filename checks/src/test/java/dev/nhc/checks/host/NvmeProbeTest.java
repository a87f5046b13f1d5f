package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** disk.nvme over a sysfs tree written as the kernel lays it out on an 8-drive node (Azure ND H100 v5 has eight local NVMe disks). */
class NvmeProbeTest {
    private static final ProbeSpec SPEC = new NvmeProbe().spec();

    @TempDir
    Path root;

    @BeforeEach
    void eightDrives() throws Exception {
        for (int i = 0; i < 8; i++) {
            Files.createDirectories(root.resolve("sys/class/nvme/nvme" + i));
            Files.createDirectories(root.resolve("sys/class/block/nvme" + i + "n1"));
        }
        // not drives: a partition, a second namespace, multipath's hidden per-path device, other disks
        for (String other : new String[] {"nvme0n1p1", "nvme0n1p2", "nvme7n2", "nvme3c3n1", "sda", "sda1", "loop0", "md0"}) {
            Files.createDirectories(root.resolve("sys/class/block/" + other));
        }
    }

    private Observation observe() {
        return new NvmeProbe().probe(new TestProbeContext(root).with(SPEC, "{ count: 8 }")).observations().get(0);
    }

    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new NvmeProbe()).run("- { name: nvme, use: disk.nvme, with: " + with + " }"), "nvme");
    }

    @Test
    void countsTheFirstNamespaceOfEachDriveAsAzuresDevNvmeN1Does() throws Exception {
        Observation o = observe();
        assertEquals(8L, o.get("disks"));
        assertEquals(9L, o.get("namespaces"));
        assertEquals(8L, o.get("controllers"));
        assertEquals(Severity.PASS, judge("{ count: 8 }").severity());
    }

    @Test
    void aDriveMissingOrOneTooManyFails() throws Exception {
        Files.delete(root.resolve("sys/class/block/nvme5n1"));
        Finding f = judge("{ count: 8 }");
        assertEquals(Severity.FAIL, f.severity(), f.message());
        assertTrue(f.message().startsWith("7 NVMe drives found, expected 8"), f.message());
        assertEquals(Severity.FAIL, judge("{ count: 6 }").severity(), "more drives than expected: Azure's count is exact");
        assertEquals(Severity.PASS, judge("{ count: 7 }").severity());
    }

    @Test
    void noNvmeDriverMeansNoDrivesAndAnUnreadableBlockClassIsUnknown() throws Exception {
        try (var s = Files.walk(root.resolve("sys/class/nvme"))) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        assertEquals(0L, observe().get("controllers"));
        try (var s = Files.walk(root.resolve("sys/class/block"))) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Finding f = judge("{ count: 8 }");
        assertEquals(Severity.UNKNOWN, f.severity(), f.message());
        assertTrue(f.message().contains("/sys/class/block"), f.message());
    }
}
