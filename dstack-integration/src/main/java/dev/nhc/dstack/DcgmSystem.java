package dev.nhc.dstack;

import dev.nhc.model.Severity;
import dev.nhc.probe.Tags;

import java.util.Set;

/**
 * DCGM's health-system bits, so that an nhc finding lands in the same category dstack already shows
 * for DCGM incidents. Read from the tags a probe declares ({@link Tags}); a check that fits none
 * (disk, memory, scripts) carries 0.
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

    /** The bit for a finding of a check whose probe has {@code tags}; the first health system among them decides. */
    public static int of(Set<String> tags, Severity severity) {
        if (tags.contains(Tags.NVSWITCH) || tags.contains(Tags.FABRIC)) {
            return severity == Severity.FAIL ? NVSWITCH_FATAL : NVSWITCH_NONFATAL;
        }
        if (tags.contains(Tags.PCIE)) {
            return PCIE;
        }
        if (tags.contains(Tags.NVLINK)) {
            return NVLINK;
        }
        if (tags.contains(Tags.MEMORY) && tags.contains(Tags.GPU)) {
            return MEM;
        }
        if (tags.contains(Tags.THERMAL)) {
            return THERMAL;
        }
        if (tags.contains(Tags.POWER)) {
            return POWER;
        }
        if (tags.contains(Tags.INFOROM)) {
            return INFOROM;
        }
        if (tags.contains(Tags.DRIVER)) {
            return DRIVER;
        }
        return NONE;
    }
}
