package dev.nhc.dstack;

import dev.nhc.model.Severity;

import java.util.Locale;

/**
 * DCGM's health-system bits, so that an nhc finding lands in the same category dstack already shows
 * for DCGM incidents. A check that fits none (disk, memory, scripts) carries 0.
 */
public final class DcgmSystem {
    public static final int NONE = 0;
    public static final int PCIE = 0x1;
    public static final int NVLINK = 0x2;
    public static final int PMU = 0x4;
    public static final int MCU = 0x8;
    public static final int MEM = 0x10;
    public static final int SM = 0x20;
    public static final int INFOROM = 0x40;
    public static final int THERMAL = 0x80;
    public static final int POWER = 0x100;
    public static final int DRIVER = 0x200;
    public static final int NVSWITCH_NONFATAL = 0x400;
    public static final int NVSWITCH_FATAL = 0x800;

    private DcgmSystem() {
    }

    /** The bit for a finding of a check using {@code probe} (e.g. gpu.ecc); only GPU-side probes get one. */
    public static int of(String probe, Severity severity) {
        if (probe == null) {
            return NONE;
        }
        String p = probe.toLowerCase(Locale.ROOT);
        if (!(p.startsWith("gpu") || p.startsWith("dcgm") || p.startsWith("nvswitch") || p.contains("sxid"))) {
            return NONE;
        }
        if (p.contains("sxid") || p.contains("nvswitch") || p.contains("fabric")) {
            return severity == Severity.FAIL ? NVSWITCH_FATAL : NVSWITCH_NONFATAL;
        }
        if (p.contains("pcie") || p.contains("inventory")) {
            return PCIE; // a GPU missing from the inventory has usually fallen off the bus
        }
        if (p.contains("nvlink")) {
            return NVLINK;
        }
        if (p.contains("ecc") || p.contains("remap") || p.contains("retire") || p.contains("mem")) {
            return MEM;
        }
        if (p.contains("therm") || p.contains("temp") || p.contains("clock")) {
            return THERMAL;
        }
        if (p.contains("power")) {
            return POWER;
        }
        if (p.contains("inforom")) {
            return INFOROM;
        }
        if (p.contains("xid") || p.contains("driver")) {
            return DRIVER; // XIDs are the driver's error reports
        }
        return NONE;
    }
}
