package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuDevice.Throttle;
import dev.nhc.checks.gpu.GpuDevice.ThrottleKind;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * AMD's violation status ({@code amdsmi_get_violation_status}, what {@code amd-smi metric
 * --throttle} shows) in the model's throttle kinds: PROCHOT and a hot voltage regulator are
 * hardware slowdowns, a hot HBM is hardware thermal, socket thermal is the firmware keeping the
 * chip under its limit (NVIDIA's SW thermal), and PPT is the socket at its power limit (NVIDIA's SW
 * power cap, normal under load).
 */
final class AmdSmiViolations {
    /** What AMD SMI writes for a violation the GPU does not report. */
    private static final int NOT_SUPPORTED = 0xFF;

    /** One violation: amd-smi's key ({@code <key>_violation_status}), its words, its kind, whether hardware. */
    enum Violation {
        PROCHOT("prochot", "PROCHOT", ThrottleKind.HW_SLOWDOWN, true, AmdSmiStructs.VIOLATION_ACTIVE_PROCHOT),
        VR_THERMAL("vr_thermal", "VR thermal", ThrottleKind.HW_SLOWDOWN, true, AmdSmiStructs.VIOLATION_ACTIVE_VR_THERMAL),
        HBM_THERMAL("hbm_thermal", "HBM thermal", ThrottleKind.HW_THERMAL, true, AmdSmiStructs.VIOLATION_ACTIVE_HBM_THERMAL),
        SOCKET_THERMAL("socket_thermal", "socket thermal", ThrottleKind.SW_THERMAL, false, AmdSmiStructs.VIOLATION_ACTIVE_SOCKET_THERMAL),
        PPT("ppt", "PPT (power)", ThrottleKind.SW_POWER_CAP, false, AmdSmiStructs.VIOLATION_ACTIVE_PPT);

        private final String cliKey;
        private final String words;
        private final ThrottleKind kind;
        private final boolean hardware;
        private final int offset;

        Violation(String cliKey, String words, ThrottleKind kind, boolean hardware, int offset) {
            this.cliKey = cliKey;
            this.words = words;
            this.kind = kind;
            this.hardware = hardware;
            this.offset = offset;
        }

        /** amd-smi's name of this violation's status in {@code metric --throttle}: "prochot_violation_status". */
        String statusKey() {
            return cliKey + "_violation_status";
        }
    }

    private AmdSmiViolations() {
    }

    /** The active violations of an {@code amdsmi_violation_status_t}; null when the GPU reports none of them. */
    static Throttle throttle(byte[] status) {
        Map<Violation, Boolean> active = new EnumMap<>(Violation.class);
        for (Violation v : Violation.values()) {
            int value = Byte.toUnsignedInt(status[v.offset]);
            if (value != NOT_SUPPORTED) {
                active.put(v, value == 1);
            }
        }
        return of(active);
    }

    /** The violations a GPU reports, active or not (one it does not report is left out); null when it reports none. */
    static Throttle of(Map<Violation, Boolean> reported) {
        if (reported.isEmpty()) {
            return null;
        }
        Set<ThrottleKind> active = EnumSet.noneOf(ThrottleKind.class);
        List<String> names = new ArrayList<>();
        List<String> hardware = new ArrayList<>();
        reported.forEach((v, on) -> {
            if (on) {
                active.add(v.kind);
                names.add(v.words);
                if (v.hardware) {
                    hardware.add(v.words);
                }
            }
        });
        return new Throttle(active, names.isEmpty() ? "none" : String.join(", ", names),
                hardware.isEmpty() ? "none" : String.join(", ", hardware), null);
    }
}
