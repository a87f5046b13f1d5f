package dev.nhc.checks.gpu;

import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The GPU makers nhc reads, each through its own management library. A GPU probe says which
 * vendors it supports by their tags ({@link GpuSpecs}; gpud's {@code IsSupported()}): the tag
 * also says what the probe reads, so a replayed {@code nvidia-smi} capture feeds the checks tagged
 * {@code nvml} and an {@code amd-smi} capture those tagged {@code amd-smi}.
 *
 * <p>{@code pciVendorId} is how the PCI bus names the maker, which tells whether a host has this
 * vendor's GPUs at all when its library cannot say (not installed, driver not loaded).
 */
public enum GpuVendor {
    NVIDIA("NVIDIA", Tags.NVML, "NVML", 0x10de, "NVLink"),
    AMD("AMD", "amd-smi", "AMD SMI", 0x1002, "XGMI");

    private final String displayName;
    private final String tag;
    private final String library;
    private final int pciVendorId;
    private final String linkName;

    GpuVendor(String displayName, String tag, String library, int pciVendorId, String linkName) {
        this.displayName = displayName;
        this.tag = tag;
        this.library = library;
        this.pciVendorId = pciVendorId;
        this.linkName = linkName;
    }

    /** "NVIDIA", "AMD": how messages and metrics name the maker. */
    public String displayName() {
        return displayName;
    }

    /** The probe tag of a probe that reads this vendor's GPUs. */
    public String tag() {
        return tag;
    }

    /** The management library by its own name: "NVML", "AMD SMI". */
    public String library() {
        return library;
    }

    public int pciVendorId() {
        return pciVendorId;
    }

    /** What the vendor calls its GPU-to-GPU links: "NVLink", "XGMI". */
    public String linkName() {
        return linkName;
    }

    /** The vendors a probe supports, by its tags (in this enum's order). */
    public static Set<GpuVendor> supportedBy(ProbeSpec spec) {
        Set<GpuVendor> out = EnumSet.noneOf(GpuVendor.class);
        for (GpuVendor v : values()) {
            if (spec.hasTag(v.tag)) {
                out.add(v);
            }
        }
        return out;
    }

    /** "NVIDIA or AMD": the vendors as a reader names them. */
    public static String names(Set<GpuVendor> vendors) {
        List<String> n = vendors.stream().map(GpuVendor::displayName).toList();
        return n.size() <= 1 ? String.join("", n) : String.join(", ", n.subList(0, n.size() - 1)) + " or " + n.get(n.size() - 1);
    }
}
