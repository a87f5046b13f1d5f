package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuDevice.Throttle;
import dev.nhc.checks.gpu.GpuDevice.ThrottleKind;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * AMD's violation status ({@code amdsmi_get_violation_status}, what {@code amd-smi metric
 * --throttle} shows) in the model's throttle kinds: PROCHOT and a hot voltage regulator are
 * hardware slowdowns, a hot HBM is hardware thermal, socket thermal is the firmware keeping the
 * chip under its limit (NVIDIA's SW thermal), and PPT is the socket at its power limit (NVIDIA's SW
 * power cap, normal under load).
 */
final class AmdSmiViolations {
    private static final int[] OFFSETS = {AmdSmiStructs.VIOLATION_ACTIVE_PROCHOT, AmdSmiStructs.VIOLATION_ACTIVE_VR_THERMAL,
        AmdSmiStructs.VIOLATION_ACTIVE_HBM_THERMAL, AmdSmiStructs.VIOLATION_ACTIVE_SOCKET_THERMAL, AmdSmiStructs.VIOLATION_ACTIVE_PPT};
    private static final ThrottleKind[] KINDS = {ThrottleKind.HW_SLOWDOWN, ThrottleKind.HW_SLOWDOWN, ThrottleKind.HW_THERMAL,
        ThrottleKind.SW_THERMAL, ThrottleKind.SW_POWER_CAP};
    private static final String[] WORDS = {"PROCHOT", "VR thermal", "HBM thermal", "socket thermal", "PPT (power)"};
    /** The first three are hardware events. */
    private static final int HARDWARE = 3;
    /** What AMD SMI writes for a violation the GPU does not report. */
    private static final int NOT_SUPPORTED = 0xFF;

    private AmdSmiViolations() {
    }

    /** The active violations; null when the GPU reports none of them. */
    static Throttle throttle(byte[] status) {
        Set<ThrottleKind> active = EnumSet.noneOf(ThrottleKind.class);
        List<String> names = new ArrayList<>();
        List<String> hardware = new ArrayList<>();
        boolean supported = false;
        for (int i = 0; i < OFFSETS.length; i++) {
            int v = Byte.toUnsignedInt(status[OFFSETS[i]]);
            if (v == NOT_SUPPORTED) {
                continue;
            }
            supported = true;
            if (v == 1) {
                active.add(KINDS[i]);
                names.add(WORDS[i]);
                if (i < HARDWARE) {
                    hardware.add(WORDS[i]);
                }
            }
        }
        if (!supported) {
            return null;
        }
        return new Throttle(active, names.isEmpty() ? "none" : String.join(", ", names),
                hardware.isEmpty() ? "none" : String.join(", ", hardware), null);
    }
}
