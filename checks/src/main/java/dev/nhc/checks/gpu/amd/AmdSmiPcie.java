package dev.nhc.checks.gpu.amd;

import java.nio.ByteBuffer;

/**
 * An {@code amdsmi_pcie_info_t} in the GPU model's terms. AMD SMI fills a value it does not have
 * with all bits set; that is "absent" here. Speeds are MT/s, turned into PCIe generations.
 */
record AmdSmiPcie(Long generation, Long maxGeneration, Long width, Long maxWidth, Long replays, Long recoveries) {
    private static final int ALL_BITS_16 = 0xFFFF;
    private static final long ALL_BITS_32 = 0xFFFFFFFFL;

    static AmdSmiPcie decode(byte[] info) {
        ByteBuffer b = AmdSmiStructs.le(info);
        Long speed = u32(b, AmdSmiStructs.PCIE_SPEED);
        Long version = u32(b, AmdSmiStructs.PCIE_INTERFACE_VERSION);
        Long maxSpeed = u32(b, AmdSmiStructs.PCIE_MAX_SPEED);
        Long maxGen = version != null && version > 0 ? version : maxSpeed == null ? null : AmdSmiStructs.generation(maxSpeed);
        return new AmdSmiPcie(speed == null ? null : AmdSmiStructs.generation(speed), maxGen,
                positive(u16(b, AmdSmiStructs.PCIE_WIDTH)), positive(u16(b, AmdSmiStructs.PCIE_MAX_WIDTH)),
                u64(b, AmdSmiStructs.PCIE_REPLAY_COUNT), u64(b, AmdSmiStructs.PCIE_L0_TO_RECOVERY_COUNT));
    }

    private static Long u16(ByteBuffer b, int offset) {
        int v = Short.toUnsignedInt(b.getShort(offset));
        return v == ALL_BITS_16 ? null : (long) v;
    }

    private static Long u32(ByteBuffer b, int offset) {
        long v = Integer.toUnsignedLong(b.getInt(offset));
        return v == ALL_BITS_32 ? null : v;
    }

    private static Long u64(ByteBuffer b, int offset) {
        long v = b.getLong(offset);
        return v < 0 ? null : v;    // UINT64_MAX means "not available"; a real counter never reaches 2^63
    }

    private static Long positive(Long v) {
        return v == null || v <= 0 ? null : v;
    }
}
