package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.GpuFabric;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The fabric-info structs' layouts, byte by byte as a C compiler lays them out. The original call
 * (nvmlGpuFabricInfo_t) is only read on drivers without the V call, which the fake NVML never is,
 * so its decoding is tested here.
 */
class NvmlFabricCallsTest {
    private static final byte[] UUID = {0x6b, 0x0f, 0x2a, 0x1e, 0x0c, 0x3d, 0x4e, 0x5f, (byte) 0x8a, (byte) 0x9b, 0x0c, 0x1d, 0x2e, 0x3f, 0x4a, 0x5b};

    @Test
    void theVersionFieldSaysSizeAndVersion() {
        assertEquals(0x03000028, NvmlFabricCalls.V3_VERSION);
        assertEquals(0x02000024, NvmlFabricCalls.V2_VERSION);
        byte[] v3 = NvmlFabricCalls.versioned(NvmlFabricCalls.V3_VERSION);
        assertEquals(40, v3.length);
        assertEquals(NvmlFabricCalls.V3_VERSION, ByteBuffer.wrap(v3).order(ByteOrder.nativeOrder()).getInt(0));
        assertEquals(36, NvmlFabricCalls.versioned(NvmlFabricCalls.V2_VERSION).length);
    }

    @Test
    void theOriginalStructHasNoVersionAndNoHealth() {
        ByteBuffer b = ByteBuffer.allocate(NvmlFabricCalls.V1_SIZE).order(ByteOrder.nativeOrder());
        b.put(0, UUID);
        b.putInt(16, 0);            // status SUCCESS
        b.putInt(20, 0x80000001);   // cliqueId, unsigned
        b.put(24, (byte) 3);        // COMPLETED
        GpuFabric f = NvmlFabricCalls.decodeV1(b.array()).decode("SUCCESS");
        assertEquals(GpuFabric.State.COMPLETED, f.state());
        assertEquals(true, f.statusOk());
        assertEquals(0x80000001L, f.cliqueId());
        assertEquals("6b0f2a1e-0c3d-4e5f-8a9b-0c1d2e3f4a5b", f.clusterUuid());
        assertNull(f.health());
        assertNull(f.routeUnhealthy());
        assertNull(f.incorrectConfiguration());
    }

    @Test
    void theV3StructCarriesTheHealthMaskAndSummary() {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        b.putInt(0, NvmlFabricCalls.V3_VERSION);
        b.put(4, UUID);
        b.putInt(20, 27);           // status NOT_READY: ignored until completed
        b.putInt(24, 5);
        b.put(28, (byte) 2);        // IN_PROGRESS
        b.putInt(32, 1 << 4 | 1 << 8);
        b.put(36, (byte) 2);        // UNHEALTHY
        GpuFabric f = NvmlFabricCalls.decodeVersioned(b.array()).decode("NOT_READY");
        assertEquals(GpuFabric.State.IN_PROGRESS, f.state());
        assertNull(f.statusOk());
        assertEquals(5L, f.cliqueId());
        assertEquals(true, f.routeUnhealthy());
        assertEquals("none", f.incorrectConfiguration());
        assertEquals(GpuFabric.Health.UNHEALTHY, f.health());
    }

    @Test
    void theV2StructHasTheMaskButNoSummary() {
        ByteBuffer b = ByteBuffer.allocate(36).order(ByteOrder.nativeOrder());
        b.putInt(0, NvmlFabricCalls.V2_VERSION);
        b.put(28, (byte) 3);
        b.putInt(32, 1);            // bandwidth degraded
        GpuFabric f = NvmlFabricCalls.decodeVersioned(b.array()).decode("SUCCESS");
        assertEquals(true, f.bandwidthDegraded());
        assertNull(f.health());
        assertNull(f.clusterUuid());
    }
}
