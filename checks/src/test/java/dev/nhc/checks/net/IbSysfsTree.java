package dev.nhc.checks.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@code /sys} tree with InfiniBand devices laid out as the kernel does (sysfs-class-infiniband):
 * {@code /sys/class/infiniband/DEV} is a link to the device under its PCI function
 * ({@code /sys/devices/pci0000:00/ADDR/infiniband/DEV}), whose {@code device} links back to the PCI
 * function, where a RoCE port's netdev sits in {@code net/}.
 */
public final class IbSysfsTree {
    private final Path root;
    private int functions;

    IbSysfsTree(Path root) {
        this.root = root;
    }

    /** A port as an NDR HCA shows it when up: "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", InfiniBand. */
    Port ib(String device, int port) throws IOException {
        return new Port(device, port).state("4: ACTIVE").phys("5: LinkUp").rate("400 Gb/sec (4X NDR)").layer("InfiniBand")
                .counter("link_downed", 0).counter("link_error_recovery", 0).counter("symbol_error", 0).counter("port_rcv_errors", 0);
    }

    /** An Ethernet (RoCE) port whose first GID belongs to {@code netdev}. */
    Port roce(String device, int port, String netdev) throws IOException {
        Port p = new Port(device, port).state("4: ACTIVE").phys("5: LinkUp").rate("100 Gb/sec (4X EDR)").layer("Ethernet");
        if (netdev != null) {
            p.write("gid_attrs/ndevs/0", netdev);
        }
        return p;
    }

    /** A node with {@code ports} NDR HCAs of one port each (mlx5_0/1 …), all up but {@code down} (-1: none). */
    public static void ndrNode(Path root, int ports, int down) throws IOException {
        IbSysfsTree tree = new IbSysfsTree(root);
        for (int i = 0; i < ports; i++) {
            Port p = tree.ib("mlx5_" + i, 1);
            if (i == down) {
                p.state("1: DOWN").phys("3: Disabled").rate("10 Gb/sec (4X SDR)");
            }
        }
    }

    Path classDir() {
        return root.resolve("sys/class/infiniband");
    }

    final class Port {
        private final Path dir;
        private final Path pciFunction;

        private Port(String device, int port) throws IOException {
            Path link = classDir().resolve(device);
            if (!Files.exists(link)) {
                String addr = String.format("0000:%02x:00.0", 0x1a + functions++);
                Path function = root.resolve("sys/devices/pci0000:00/" + addr);
                Path dev = function.resolve("infiniband/" + device);
                Files.createDirectories(dev);
                Files.createDirectories(link.getParent());
                Files.createSymbolicLink(link, link.getParent().relativize(dev));
                Files.createSymbolicLink(dev.resolve("device"), dev.relativize(function));
            }
            this.pciFunction = link.toRealPath().resolve("device").toRealPath();
            this.dir = link.resolve("ports/" + port);
            Files.createDirectories(dir);
        }

        Port state(String s) throws IOException {
            return write("state", s);
        }

        Port phys(String s) throws IOException {
            return write("phys_state", s);
        }

        Port rate(String s) throws IOException {
            return write("rate", s);
        }

        Port layer(String s) throws IOException {
            return write("link_layer", s);
        }

        Port counter(String name, long value) throws IOException {
            return write("counters/" + name, Long.toString(value));
        }

        /** A netdev of the port's PCI function, with its {@code dev_port} (0 for the first port). */
        Port functionNetdev(String name, int devPort) throws IOException {
            Path net = pciFunction.resolve("net/" + name);
            Files.createDirectories(net);
            Files.writeString(net.resolve("dev_port"), devPort + "\n");
            return this;
        }

        Port write(String file, String content) throws IOException {
            Path p = dir.resolve(file);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content + "\n");
            return this;
        }

        Path dir() {
            return dir;
        }
    }
}
