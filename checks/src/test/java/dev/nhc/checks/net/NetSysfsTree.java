package dev.nhc.checks.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** /sys/class/net trees laid out as the kernel does: each interface a link to its device directory with its attributes. */
public final class NetSysfsTree {
    private NetSysfsTree() {
    }

    /** An interface as the kernel shows it: /sys/class/net/NAME a link to /sys/devices/…/net/NAME with its attributes. */
    public static Path netdev(Path root, String name, String operstate, String flags, String carrier, String speed, String mtu, String type)
            throws IOException {
        Path dev = root.resolve("sys/devices/pci0000:00/0000:17:00.0/net/" + name);
        Files.createDirectories(dev);
        write(dev, "operstate", operstate);
        write(dev, "flags", flags);
        write(dev, "carrier", carrier);
        write(dev, "speed", speed);
        write(dev, "mtu", mtu);
        write(dev, "type", type);
        Path link = root.resolve("sys/class/net/" + name);
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, link.getParent().relativize(dev));
        return dev;
    }

    /** Loopback, a 25 GbE port with jumbo frames, an IPoIB port up at 400 Gb/s and one down, and bonding's class file. */
    public static void healthyNode(Path root) throws IOException {
        netdev(root, "lo", "unknown", "0x9", "1", null, "65536", "772");
        netdev(root, "eth0", "up", "0x1003", "1", "25000", "9000", "1");
        netdev(root, "ib0", "up", "0x1003", "1", "400000", "4092", "32");
        netdev(root, "ib1", "down", "0x1003", "0", "-1", "4092", "32");
        Files.writeString(root.resolve("sys/class/net/bonding_masters"), "\n");
    }

    private static void write(Path dir, String attr, String value) throws IOException {
        if (value != null) {
            Files.writeString(dir.resolve(attr), value + "\n");
        }
    }
}
