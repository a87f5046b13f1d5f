package dev.nhc.checks.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The interfaces under {@code /sys/class/net}: one directory (a link to the device) per interface,
 * the same list as {@code /proc/net/dev}. Entries that are not directories ({@code bonding_masters})
 * are not interfaces. {@code operstate} and {@code flags} are what an interface is judged by; the
 * other attributes may be unreadable while the link is down (the kernel answers EINVAL), and are then
 * left out.
 */
final class SysfsNetInterfaces {
    private final Path classDir;

    /** @param classDir {@code /sys/class/net} under the system root */
    SysfsNetInterfaces(Path classDir) {
        this.classDir = classDir;
    }

    /** No {@code /sys/class/net} at all is no interface, not an error (a root without sysfs reports none). */
    List<NetInterface> interfaces() throws IOException {
        List<NetInterface> out = new ArrayList<>();
        if (!Files.isDirectory(classDir)) {
            return out;
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(classDir)) {
            for (Path p : dir) {
                if (Files.isDirectory(p)) {
                    names.add(p.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot list " + classDir + ": " + e.getMessage(), e);
        }
        names.sort(NaturalOrder.INSTANCE);
        for (String name : names) {
            out.add(read(name));
        }
        return out;
    }

    private NetInterface read(String name) {
        Path dir = classDir.resolve(name);
        String operstate;
        long flags;
        try {
            operstate = require(dir.resolve("operstate"));
            flags = Long.decode(require(dir.resolve("flags")));
        } catch (IOException | NumberFormatException e) {
            return NetInterface.unreadable(name, "cannot read " + dir + ": " + e.getMessage());
        }
        Long carrier = number(optional(dir.resolve("carrier")));
        Long speed = number(optional(dir.resolve("speed")));
        return new NetInterface(name, operstate, (flags & 1) != 0, carrier == null ? null : carrier != 0,
                speed == null || speed < 0 ? null : speed, number(optional(dir.resolve("mtu"))), number(optional(dir.resolve("type"))), null);
    }

    private static String require(Path p) throws IOException {
        try {
            return Files.readString(p, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw new IOException(p.getFileName() + " is missing", e);
        }
    }

    /** The attribute's text, or null when it is missing or the driver refuses it (EINVAL while the link is down). */
    private static String optional(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return null;
        }
    }

    private static Long number(String text) {
        if (text == null || !text.matches("-?[0-9]{1,18}")) {
            return null;
        }
        return Long.parseLong(text);
    }
}
