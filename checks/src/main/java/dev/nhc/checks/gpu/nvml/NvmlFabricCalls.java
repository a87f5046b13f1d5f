package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import dev.nhc.checks.gpu.GpuFabric;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * NVML's fabric-info calls, which only newer drivers export: {@code nvmlDeviceGetGpuFabricInfo}
 * and, later, {@code nvmlDeviceGetGpuFabricInfoV}. JNA's direct mapping binds a class all or
 * nothing, so declaring them in {@link NvmlNative} would stop every GPU check on a driver without
 * them; they are looked up by name when first used instead, and a driver that has neither simply
 * has no fabric information (as NOT_SUPPORTED).
 *
 * <p>Struct layouts (all fields naturally aligned, byte order native):
 * <ul>
 * <li>{@code nvmlGpuFabricInfo_t}: uchar clusterUuid[16] @0; nvmlReturn_t status @16; uint cliqueId @20;
 *     uchar state @24; 28 bytes.</li>
 * <li>{@code nvmlGpuFabricInfo_v2_t}: uint version @0; uchar clusterUuid[16] @4; status @20; cliqueId @24;
 *     uchar state @28; uint healthMask @32; 36 bytes.</li>
 * <li>{@code nvmlGpuFabricInfo_v3_t}: v2 plus uchar healthSummary @36; 40 bytes.</li>
 * </ul>
 * The V call reads the version the caller wrote ({@code sizeof | N << 24}); a driver that knows
 * only v2 answers ARGUMENT_VERSION_MISMATCH to v3, and is asked again with v2.
 */
final class NvmlFabricCalls {
    static final String INFO_V = "nvmlDeviceGetGpuFabricInfoV";
    static final String INFO = "nvmlDeviceGetGpuFabricInfo";

    static final int V1_SIZE = 28;
    static final int V2_SIZE = 36;
    static final int V3_SIZE = 40;
    static final int V2_VERSION = V2_SIZE | 2 << 24;
    static final int V3_VERSION = V3_SIZE | 3 << 24;
    private static final int UUID_LEN = 16;

    private static String lookedUpIn;
    private static Function infoV;
    private static Function info;

    private NvmlFabricCalls() {
    }

    /** The V call of the bound library, or null when this driver does not export it. */
    static Function infoV() {
        lookUp();
        synchronized (NvmlFabricCalls.class) {
            return infoV;
        }
    }

    /** The original call, or null when this driver does not export it. */
    static Function info() {
        lookUp();
        synchronized (NvmlFabricCalls.class) {
            return info;
        }
    }

    private static synchronized void lookUp() {
        String library = NvmlNative.boundLibrary();
        if (library == null || library.equals(lookedUpIn)) {
            return;
        }
        NativeLibrary lib = NativeLibrary.getInstance(library);    // the instance NvmlNative is bound to
        infoV = find(lib, INFO_V);
        info = find(lib, INFO);
        lookedUpIn = library;
    }

    private static Function find(NativeLibrary lib, String name) {
        try {
            return lib.getFunction(name);
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    /** An nvmlGpuFabricInfo_v3_t or _v2_t to pass to the V call, its version filled in. */
    static byte[] versioned(int version) {
        byte[] b = new byte[version == V3_VERSION ? V3_SIZE : V2_SIZE];
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putInt(0, version);
        return b;
    }

    /** Calls {@code f(device, struct)}; JNA copies the array in and back out. */
    static int call(Function f, long device, byte[] struct) {
        return f.invokeInt(new Object[] {device, struct});
    }

    /** What the V call wrote into {@code struct} (v2 or v3 by its length). */
    static Raw decodeVersioned(byte[] struct) {
        ByteBuffer b = ByteBuffer.wrap(struct).order(ByteOrder.nativeOrder());
        byte[] uuid = new byte[UUID_LEN];
        b.get(4, uuid);
        Integer summary = struct.length >= V3_SIZE ? Byte.toUnsignedInt(b.get(36)) : null;
        return new Raw(Byte.toUnsignedInt(b.get(28)), b.getInt(20), Integer.toUnsignedLong(b.getInt(24)), uuid,
                Integer.toUnsignedLong(b.getInt(32)), summary);
    }

    /** What the original call wrote into its 28 bytes. */
    static Raw decodeV1(byte[] struct) {
        ByteBuffer b = ByteBuffer.wrap(struct).order(ByteOrder.nativeOrder());
        byte[] uuid = new byte[UUID_LEN];
        b.get(0, uuid);
        return new Raw(Byte.toUnsignedInt(b.get(24)), b.getInt(16), Integer.toUnsignedLong(b.getInt(20)), uuid, null, null);
    }

    /** The struct's values as NVML wrote them. */
    record Raw(int state, int status, long cliqueId, byte[] clusterUuid, Long healthMask, Integer healthSummary) {
        GpuFabric decode(String statusText) {
            return GpuFabric.fromNvml(state, status, statusText, cliqueId, clusterUuid, healthMask, healthSummary);
        }
    }
}
