package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.GpuDevice.Throttle;
import dev.nhc.checks.gpu.GpuDevice.ThrottleKind;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * NVML's clock-event-reason bit mask ({@code nvmlDeviceGetCurrentClocksEventReasons}, or the
 * "Clocks Event Reasons" of {@code nvidia-smi -q}) in the GPU model's words. A hardware clock
 * event cuts the clocks by half or more; the thermal and power-brake events are what set the HW
 * slowdown bit.
 */
public final class NvmlClockEvents {
    static final long HW_SLOWDOWN = 0x8L;
    static final long SW_POWER_CAP = 0x4L;
    static final long SW_THERMAL = 0x20L;
    static final long HW_THERMAL = 0x40L;
    static final long HW_POWER_BRAKE = 0x80L;

    /** nvmlClocksEventReason bits and how messages name them, in NVML's order. */
    private static final long[] REASON_BITS = {0x1L, 0x2L, SW_POWER_CAP, HW_SLOWDOWN, 0x10L, SW_THERMAL, HW_THERMAL, HW_POWER_BRAKE, 0x100L};
    private static final String[] REASON_NAMES = {"idle", "applications clocks setting", "SW power cap", "HW slowdown", "sync boost",
        "SW thermal slowdown", "HW thermal slowdown", "HW power brake", "display clock setting"};

    private NvmlClockEvents() {
    }

    public static Throttle throttle(long reasons) {
        Set<ThrottleKind> active = EnumSet.noneOf(ThrottleKind.class);
        boolean hw = (reasons & HW_SLOWDOWN) != 0;
        boolean thermal = (reasons & HW_THERMAL) != 0;
        boolean brake = (reasons & HW_POWER_BRAKE) != 0;
        add(active, hw, ThrottleKind.HW_SLOWDOWN);
        add(active, thermal, ThrottleKind.HW_THERMAL);
        add(active, brake, ThrottleKind.HW_POWER_BRAKE);
        add(active, (reasons & SW_THERMAL) != 0, ThrottleKind.SW_THERMAL);
        add(active, (reasons & SW_POWER_CAP) != 0, ThrottleKind.SW_POWER_CAP);
        return new Throttle(active, names(reasons), hwReasons(hw, thermal, brake), reasons);
    }

    private static void add(Set<ThrottleKind> set, boolean on, ThrottleKind kind) {
        if (on) {
            set.add(kind);
        }
    }

    /** "idle, SW power cap"; bits NVML may add later are named by their value. */
    static String names(long reasons) {
        List<String> out = new ArrayList<>();
        long rest = reasons;
        for (int i = 0; i < REASON_BITS.length; i++) {
            if ((reasons & REASON_BITS[i]) != 0) {
                out.add(REASON_NAMES[i]);
                rest &= ~REASON_BITS[i];
            }
        }
        if (rest != 0) {
            out.add("0x" + Long.toHexString(rest));
        }
        return out.isEmpty() ? "none" : String.join(", ", out);
    }

    /** "HW slowdown (HW power brake)". */
    static String hwReasons(boolean hw, boolean thermal, boolean brake) {
        List<String> causes = new ArrayList<>();
        if (thermal) {
            causes.add("HW thermal slowdown");
        }
        if (brake) {
            causes.add("HW power brake");
        }
        if (!hw) {
            return causes.isEmpty() ? "none" : String.join(", ", causes);
        }
        return causes.isEmpty() ? "HW slowdown" : "HW slowdown (" + String.join(", ", causes) + ")";
    }
}
