package dev.nhc.checks.gpu;

import dev.nhc.probe.ProbeContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether the PCI bus shows GPUs of a vendor, by the kernel's own record of each device
 * ({@code /sys/bus/pci/devices/*}{@code /vendor} and {@code class}), whatever the vendor's driver
 * and library are doing. Asked only when a library's failure could also mean "this host has no
 * such GPUs" (library not installed, driver not loaded, no GPU counted): the bus tells a host
 * without AMD GPUs from an AMD host whose driver did not load.
 *
 * <p>A GPU is a display controller (PCI class 0x03, e.g. H100's 3D controller 0x0302) or a
 * processing accelerator (0x12, e.g. MI300X); the vendors' audio functions and NVSwitches are
 * other classes.
 */
final class PciGpus {
    static final String DEVICES = "/sys/bus/pci/devices";

    /** What the bus shows of one vendor. */
    enum Seen {
        /** At least one GPU of the vendor. */
        SOME,
        /** The bus is readable and has none. */
        NONE,
        /** The bus could not be read (no /sys in a container or a test root): it cannot tell. */
        UNKNOWN
    }

    private PciGpus() {
    }

    static Seen seen(ProbeContext ctx, GpuVendor vendor) {
        Path dir = ctx.sys(DEVICES);
        if (!Files.isDirectory(dir)) {
            return Seen.UNKNOWN;
        }
        try (DirectoryStream<Path> devices = Files.newDirectoryStream(dir)) {
            for (Path d : devices) {
                if (number(d.resolve("vendor")) == vendor.pciVendorId() && isGpu(number(d.resolve("class")))) {
                    return Seen.SOME;
                }
            }
        } catch (IOException e) {
            return Seen.UNKNOWN;
        }
        return Seen.NONE;
    }

    private static boolean isGpu(long pciClass) {
        long base = pciClass >> 16;
        return base == 0x03 || base == 0x12;
    }

    /** "0x10de" → 0x10de; -1 when the attribute is missing or not a number. */
    private static long number(Path attribute) {
        try {
            String s = new String(Files.readAllBytes(attribute), StandardCharsets.US_ASCII).trim().toLowerCase(Locale.ROOT);
            return Long.parseLong(s.startsWith("0x") ? s.substring(2) : s, 16);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
