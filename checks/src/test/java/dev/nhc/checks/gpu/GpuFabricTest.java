package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.fabric.GpuFabricProbe;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A GPU's fabric registration: NVML's values decoded, and read through the real JNA binding from the project's fake NVML. */
public class GpuFabricTest {
    /** Every health-mask field at "false" and the configuration "none": 0x1aa. */
    public static final long HEALTHY_MASK = 2 | 2 << 2 | 2 << 4 | 2 << 6 | 1 << 8;
    static final String CLUSTER = "6b0f2a1e-0c3d-4e5f-8a9b-0c1d2e3f4a5b";

    @TempDir
    Path root;

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    /** A fake-NVML "fabric" object. */
    public static Map<String, Object> fabric(int state, int status, long mask, int summary) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("state", state);
        f.put("status", status);
        f.put("clique_id", 32766);
        f.put("cluster_uuid", CLUSTER);
        f.put("health_mask", mask);
        f.put("health_summary", summary);
        return f;
    }

    private GpuDevice gpu(Map<String, Object> gpu) throws Exception {
        FakeNvml.use(FakeNvml.scenario(List.of(gpu)));
        TestProbeContext ctx = new TestProbeContext(root).setting("nvml_library", FakeNvml.library()).budget(Duration.ofSeconds(10));
        return GpuSources.forProbe(ctx, new GpuFabricProbe().spec()).devices().get(0);
    }

    private GpuFabric read(Map<String, Object> fabric) throws Exception {
        Map<String, Object> g = FakeNvml.healthyH100(0);
        if (fabric != null) {
            g.put("fabric", fabric);
        }
        return gpu(g).fabric();
    }

    @Test
    void theMaskDecodesIntoItsFieldsAndBack() {
        long mask = 1 | 2 << 2 | 1 << 4 | 0 << 6 | 5L << 8;
        GpuFabric f = GpuFabric.fromNvml(3, 0, "SUCCESS", 7, new byte[16], mask, 3);
        assertEquals(true, f.bandwidthDegraded());
        assertEquals(false, f.routeRecovery());
        assertEquals(true, f.routeUnhealthy());
        assertNull(f.accessTimeoutRecovery(), "0: not reported");
        assertEquals("insufficient-nvlinks", f.incorrectConfiguration());
        assertEquals(GpuFabric.Health.LIMITED_CAPACITY, f.health());
        assertNull(f.clusterUuid(), "all-zero UUID: no cluster");
        assertEquals(mask, f.healthMask());
        assertEquals(HEALTHY_MASK, GpuFabric.fromNvml(3, 0, "SUCCESS", 0, null, HEALTHY_MASK, 1).healthMask());
    }

    @Test
    void statusCountsOnlyOnceTheRegistrationCompleted() {
        GpuFabric progress = GpuFabric.fromNvml(2, 27, "NOT_READY", 0, null, null, null);
        assertEquals(GpuFabric.State.IN_PROGRESS, progress.state());
        assertNull(progress.status());
        assertNull(progress.statusOk());
        GpuFabric failed = GpuFabric.fromNvml(3, 999, "UNKNOWN (Unknown Error)", 0, null, null, null);
        assertEquals(false, failed.statusOk());
        assertEquals("UNKNOWN (Unknown Error)", failed.status());
        assertNull(failed.health(), "no V call: no health");
        assertNull(GpuFabric.fromNvml(9, 0, "SUCCESS", 0, null, null, null).state(), "a state NVML does not define");
    }

    @Test
    void theVCallGivesStateStatusCliqueClusterAndHealth() throws Exception {
        GpuFabric f = read(fabric(3, 0, HEALTHY_MASK, 1));
        assertEquals(GpuFabric.State.COMPLETED, f.state());
        assertEquals("SUCCESS", f.status());
        assertEquals(true, f.statusOk());
        assertEquals(32766L, f.cliqueId());
        assertEquals(CLUSTER, f.clusterUuid());
        assertEquals(GpuFabric.Health.HEALTHY, f.health());
        assertEquals(false, f.bandwidthDegraded());
        assertEquals(false, f.routeUnhealthy());
        assertEquals("none", f.incorrectConfiguration());
        assertTrue(f.onFabric());
    }

    @Test
    void aDriverThatKnowsOnlyTheV2StructIsAskedAgainWithIt() throws Exception {
        Map<String, Object> fabric = fabric(3, 0, 1 | 2 << 2 | 2 << 4 | 2 << 6 | 1 << 8, 1);
        fabric.put("struct_version", 2);
        GpuFabric f = read(fabric);
        assertEquals(true, f.bandwidthDegraded(), "the v2 struct's health mask");
        assertNull(f.health(), "v2 has no summary");
    }

    @Test
    void aFailedRegistrationNamesTheStatusNvmlGives() throws Exception {
        GpuFabric f = read(fabric(3, 999, HEALTHY_MASK, 2));
        assertEquals(false, f.statusOk());
        assertTrue(f.status().startsWith("UNKNOWN"), f.status());
        assertEquals(GpuFabric.Health.UNHEALTHY, f.health());
    }

    @Test
    void aGpuWithoutFabricHasNone() throws Exception {
        assertNull(read(null), "NOT_SUPPORTED: no fabric information");
        GpuFabric pcie = read(fabric(0, 0, 0, 0));
        assertEquals(GpuFabric.State.NOT_SUPPORTED, pcie.state());
        assertNull(pcie.cliqueId());
        assertTrue(!pcie.onFabric());
    }

    @Test
    void aLostGpuAndAHungCallAreTheGpusFaultsNamingTheCall() throws Exception {
        Map<String, Object> lost = FakeNvml.healthyH100(0);
        lost.put("fabric", fabric(3, 0, HEALTHY_MASK, 1));
        lost.put("returns", Map.of("nvmlDeviceGetGpuFabricInfoV", 15));
        GpuCallException e = assertThrows(GpuCallException.class, () -> gpu(lost).fabric());
        assertEquals(GpuCallException.Kind.LOST, e.kind());
        assertEquals("nvmlDeviceGetGpuFabricInfoV", e.call());

        Map<String, Object> hung = FakeNvml.healthyH100(0);
        hung.put("fabric", fabric(3, 0, HEALTHY_MASK, 1));
        hung.put("delays_ms", Map.of("nvmlDeviceGetGpuFabricInfoV", 60_000));
        FakeNvml.use(FakeNvml.scenario(List.of(hung)));
        TestProbeContext ctx = new TestProbeContext(root).setting("nvml_library", FakeNvml.library()).budget(Duration.ofSeconds(2));
        GpuDevice device = GpuSources.forProbe(ctx, new GpuFabricProbe().spec()).devices().get(0);
        GpuCallException h = assertThrows(GpuCallException.class, device::fabric);
        assertEquals(GpuCallException.Kind.HUNG, h.kind());
        assertEquals("nvmlDeviceGetGpuFabricInfoV", h.call());
    }

    @Test
    void aRefusedCallLosesOnlyThatValue() throws Exception {
        Map<String, Object> g = FakeNvml.healthyH100(0);
        g.put("fabric", fabric(3, 0, HEALTHY_MASK, 1));
        g.put("returns", Map.of("nvmlDeviceGetGpuFabricInfoV", 4));
        GpuDevice device = gpu(g);
        assertNull(device.fabric());
        assertTrue(device.problems().get(0).contains("nvmlDeviceGetGpuFabricInfoV returned NO_PERMISSION"), device.problems().toString());
    }
}
