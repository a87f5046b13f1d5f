package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.nvml.NvmlNative;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.checks.gpu.nvml.XidEventWatcher;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * gpu.xid with the project's fake libnvidia-ml.so.1 through the real JNA binding: GPUs named live by
 * index, and XID events raised through the fake's events file reaching the check the way the
 * daemon wires them (XidEventWatcher → NvmlXidEvents, as cli's NvmlXidTrigger does).
 */
class GpuXidThroughFakeNvmlTest {
    private static final String LOG = "/var/log/kern.log";
    private static final String XID = "- { name: xid, use: gpu.xid, with: { log: " + LOG + " } }";

    @TempDir
    Path root;
    private XidEventWatcher watcher;

    @BeforeEach
    void node() throws Exception {
        Path boot = root.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(boot.getParent());
        Files.writeString(boot, "boot-1\n");
        Files.createDirectories(root.resolve("var/log"));
        Files.writeString(root.resolve("var/log/kern.log"), "");
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(4)));   // PCI 19, 29, 39, 49
    }

    @AfterEach
    void close() {
        if (watcher != null) {
            watcher.close();
            NvmlNative.nvmlShutdown();
        }
        NvmlSessions.closeAll();
    }

    private Pipeline pipeline() {
        return new Pipeline(root, new GpuXidProbe()).settings("nvml_library: " + FakeNvml.library());
    }

    /** Issue 11 item 8: a live XID is named by index and PCI id, as the other GPU probes name the GPU. */
    @Test
    void aKernelLogXidIsNamedByTheGpuIndexNvmlGivesItsAddress() throws Exception {
        Files.writeString(root.resolve("var/log/kern.log"), "[7.0] NVRM: Xid (PCI:0000:29:00): 48, pid=1, name=x, DBE\n");
        Verdict v = pipeline().run(XID);
        Finding f = Pipeline.about(v, "xid", "GPU 1");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("0000:29:00.0", f.entity().pciBusId());
        assertEquals("GPU 1: XID 48 (Double Bit ECC Error) since [7.000000]: pid=1, name=x, DBE — stays failing until reboot or "
                + "`nhc clear xid`", f.message());
    }

    @Test
    void anAddressNvmlDoesNotKnowKeepsItsPciName() throws Exception {
        Files.writeString(root.resolve("var/log/kern.log"), "[7.0] NVRM: Xid (PCI:0000:af:00): 48, DBE\n");
        assertEquals(Severity.FAIL, Pipeline.about(pipeline().run(XID), "xid", "GPU at PCI 0000:af:00.0").severity());
    }

    /** Issue 11 item 2: a fatal XID NVML reports fails the check on the run right after it, named by index and PCI id. */
    @Test
    void anXidEventFromTheFakeNvmlFailsTheNextRun() throws Exception {
        Files.writeString(FakeNvml.eventsFile(), "");
        NvmlXidEvents events = new NvmlXidEvents();
        Clock clock = Clock.systemUTC();
        watcher = XidEventWatcher.start(FakeNvml.library(), (gpu, pci, xid) -> {
            if (xid >= 0) {
                events.add(new NvmlXidEvents.Event(gpu, pci, xid, clock.instant()));
            }
        });
        Pipeline p = pipeline().service(NvmlXidEvents.class, events);
        assertEquals(Severity.PASS, Pipeline.severity(p.run(XID), "xid"));

        Files.writeString(FakeNvml.eventsFile(), "gpu=2 xid=79\n", StandardOpenOption.APPEND);
        Verdict[] failed = new Verdict[1];
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            failed[0] = p.run(XID);
            return Pipeline.severity(failed[0], "xid") == Severity.FAIL;
        });
        Finding f = Pipeline.about(failed[0], "xid", "GPU 2");
        assertEquals("0000:39:00.0", f.entity().pciBusId());
        assertEquals(SlurmState.FAIL, f.slurmState());
        assertEquals(Remedy.REBOOT, f.remedy());
        // Latched: the event queue is empty now, and the GPU still fails.
        assertEquals(Severity.FAIL, Pipeline.about(p.run(XID), "xid", "GPU 2").severity());
    }
}
