package dev.nhc.checks.host;

import dev.nhc.probe.ProbeContext;

import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * What kind of device a PCI address is, from {@code /sys/bus/pci/devices/ADDR/class} under the
 * context's root ("0x030200": class 03 display, subclass 02 3D controller): so that a kernel log
 * pattern about a PCIe error counts for GPUs and NICs and not for every bridge and disk. One run
 * reads each address once. A device whose class cannot be read counts: after an uncorrectable
 * error the kernel may have removed it, and a GPU that vanished must not pass.
 */
final class PciClass {
    private static final int MAX_BYTES = 64;
    private final ProbeContext ctx;
    private final Map<String, String> classes = new HashMap<>();

    PciClass(ProbeContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Whether the address the pattern's {@code pci} group matched in {@code text} is of one of its
     * classes, or of a class nhc cannot read. Called after the pattern matched within its bound, so
     * matching it once more to read the group is bounded by the same work.
     */
    boolean counts(KernelLogPatterns.LogPattern p, String text) {
        List<String> prefixes = p.pciClasses();
        if (prefixes.isEmpty()) {
            return true;
        }
        Matcher m = p.regex().matcher(text);
        if (!m.lookingAt()) {
            return true;
        }
        String address = m.group("pci");
        if (address == null) {
            return true;
        }
        String c = classes.computeIfAbsent(address.toLowerCase(Locale.ROOT), this::read);
        if (c.isEmpty()) {
            return true;
        }
        return prefixes.stream().anyMatch(c::startsWith);
    }

    /** "030200" for a 3D controller, "" when there is no such device or its class is not six hex digits. */
    private String read(String address) {
        try (var in = Files.newInputStream(ctx.sys("/sys/bus/pci/devices/" + address + "/class"))) {
            String s = new String(in.readNBytes(MAX_BYTES), java.nio.charset.StandardCharsets.US_ASCII).strip().toLowerCase(Locale.ROOT);
            if (s.startsWith("0x")) {
                s = s.substring(2);
            }
            return s.matches("[0-9a-f]{6}") ? s : "";
        } catch (IOException e) {
            return "";
        }
    }
}
