package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What load observes; its default rule is judged in {@link HostDefaultRulesTest}. */
class LoadProbeTest {
    private static final ProbeSpec SPEC = new LoadProbe().spec();

    @TempDir
    Path root;

    private TestProbeContext ctx() {
        return new TestProbeContext(root).with(SPEC, "{ }");
    }

    @Test
    void readsTheAveragesAndDividesByOnlineCpus() throws Exception {
        TestProbeContext ctx = ctx();
        ctx.write("/proc/loadavg", "530.12 410.50 300.01 7/2345 99812\n");
        ctx.write("/sys/devices/system/cpu/online", "0-127\n");
        Observation o = new LoadProbe().probe(ctx).observations().get(0);
        assertEquals(Entity.NODE, o.entity());
        assertEquals(530.12, o.get("load1"));
        assertEquals(410.5, o.get("load5"));
        assertEquals(300.01, o.get("load15"));
        assertEquals(4.14, o.get("load1_per_cpu"));
        assertEquals(7L, o.get("runnable"));
        assertEquals(2345L, o.get("tasks"));
    }

    @Test
    void withoutAnOnlineListThereIsNoPerCpuFigure() throws Exception {
        TestProbeContext ctx = ctx();
        ctx.write("/proc/loadavg", "0.00 0.01 0.05 1/80 1\n");
        Observation o = new LoadProbe().probe(ctx).observations().get(0);
        assertFalse(o.fields().containsKey("load1_per_cpu"));
        assertEquals(0.05, o.get("load15"));
    }

    @Test
    void aGarbledFileIsAnErrorNamingThePath() throws IOException {
        TestProbeContext ctx = ctx();
        ctx.write("/proc/loadavg", "busy\n");
        IOException e = assertThrows(IOException.class, () -> new LoadProbe().probe(ctx));
        assertEquals(root.resolve("proc/loadavg") + ": expected three load averages, got 'busy'", e.getMessage());
    }

    @Test
    void aMissingFileIsAnErrorNamingThePath() {
        IOException e = assertThrows(IOException.class, () -> new LoadProbe().probe(ctx()));
        assertTrue(e.getMessage().startsWith(root.resolve("proc/loadavg").toString()), e.getMessage());
    }
}
