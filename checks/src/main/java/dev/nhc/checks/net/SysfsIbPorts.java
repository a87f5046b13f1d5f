package dev.nhc.checks.net;

import dev.nhc.checks.DecimalDigits;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ports under {@code /sys/class/infiniband} (the kernel's Documentation/ABI/stable/sysfs-class-infiniband):
 * per device {@code ports/N/} with {@code state} ("4: ACTIVE"), {@code phys_state} ("5: LinkUp"),
 * {@code rate} ("400 Gb/sec (4X NDR)"), {@code link_layer} ("InfiniBand" or "Ethernet") and the
 * PortCounters of the InfiniBand Performance Management class in {@code counters/}. The netdev of a
 * RoCE port is the one its first GID belongs to ({@code gid_attrs/ndevs/0}), else the PCI function's
 * own ({@code DEV/device/net/*}, the one whose {@code dev_port} is this port's when there are several).
 *
 * <p>{@code state} and {@code phys_state} are what a port is judged by: when either cannot be read
 * the port is unreadable. The other attributes are optional (a counter a driver does not implement
 * reads EINVAL): what cannot be read is left out.
 */
public final class SysfsIbPorts implements IbPortsSource {
    /** The counters ib.ports observes, by their sysfs names: flaps first, then error counters. */
    public static final List<String> COUNTERS = List.of("link_downed", "link_error_recovery", "symbol_error", "port_rcv_errors",
            "port_rcv_remote_physical_errors", "local_link_integrity_errors", "excessive_buffer_overrun_errors", "port_xmit_discards");

    private final Path classDir;
    private final byte[] buf = new byte[256];

    /** @param classDir {@code /sys/class/infiniband} under the system root */
    public SysfsIbPorts(Path classDir) {
        this.classDir = classDir;
    }

    @Override
    public boolean hasCounters() {
        return true;
    }

    /** No {@code /sys/class/infiniband} (no RDMA driver loaded) is no ports, not an error. */
    @Override
    public List<IbPort> ports() throws IOException {
        if (!Files.isDirectory(classDir)) {
            return List.of();
        }
        List<IbPort> out = new ArrayList<>();
        for (String device : list(classDir)) {
            Path ports = classDir.resolve(device).resolve("ports");
            List<String> numbers;
            try {
                numbers = list(ports);
            } catch (IOException e) {
                out.add(IbPort.unreadable(device, IbPort.NO_PORT, "cannot list " + ports + ": " + reason(e)));
                continue;
            }
            for (String n : numbers) {
                if (DecimalDigits.only(n)) {
                    out.add(port(device, Integer.parseInt(n), ports.resolve(n)));
                }
            }
        }
        return out;
    }

    private IbPort port(String device, int number, Path dir) {
        String state;
        String phys;
        try {
            state = afterCode(require(dir.resolve("state")));
            phys = afterCode(require(dir.resolve("phys_state")));
        } catch (IOException e) {
            return IbPort.unreadable(device, number, "cannot read " + e.getMessage());
        }
        String layer = optional(dir.resolve("link_layer"));
        if (layer == null) {
            layer = "InfiniBand"; // kernels before 2.6.37 had InfiniBand ports only, and no link_layer
        }
        String rateText = optional(dir.resolve("rate"));
        Map<String, Long> counters = new LinkedHashMap<>();
        for (String c : COUNTERS) {
            Long v = number(optional(dir.resolve("counters").resolve(c)));
            if (v != null) {
                counters.put(c, v);
            }
        }
        String netdev = layer.equalsIgnoreCase("Ethernet") ? netdev(device, number, dir) : null;
        return new IbPort(device, number, state, phys, Rates.gbps(rateText), Rates.speed(rateText), layer, netdev, counters, null);
    }

    private String netdev(String device, int number, Path portDir) {
        String byGid = optional(portDir.resolve("gid_attrs/ndevs/0"));
        if (byGid != null && !byGid.isEmpty()) {
            return byGid;
        }
        Path net = classDir.resolve(device).resolve("device/net");
        try {
            List<String> names = list(net);
            if (names.size() == 1) {
                return names.get(0);
            }
            for (String name : names) {
                Long devPort = number(optional(net.resolve(name).resolve("dev_port")));
                if (devPort != null && devPort == number - 1) {
                    return name;
                }
            }
        } catch (IOException e) {
            // no netdev known: the field is left out
        }
        return null;
    }

    /** "4: ACTIVE" → "ACTIVE"; text without a code is kept whole. */
    static String afterCode(String text) {
        int colon = text.indexOf(": ");
        return colon >= 0 && DecimalDigits.only(text.substring(0, colon)) ? text.substring(colon + 2).strip() : text;
    }

    private static Long number(String text) {
        if (text == null || text.isEmpty() || !DecimalDigits.only(text)) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return null; // beyond a long: not a counter nhc can use
        }
    }

    /** Entries of a directory in natural order (mlx5_2 before mlx5_10). */
    private static List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                names.add(e.getFileName().toString());
            }
        }
        names.sort(NaturalOrder.INSTANCE);
        return names;
    }

    private String require(Path file) throws IOException {
        String text = read(file);
        if (text == null) {
            throw new IOException(file + ": No such file or directory");
        }
        return text;
    }

    /** The attribute's text, or null when it is absent or cannot be read (EINVAL for what a driver does not implement). */
    private String optional(Path file) {
        try {
            return read(file);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A small sysfs attribute, stripped; null when it does not exist. FileInputStream into a reused
     * buffer: a node with eight HCAs has a hundred of these to read, and on a cold JVM this costs a
     * third of {@code Files.readString}.
     */
    private String read(Path file) throws IOException {
        int len = 0;
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            int n;
            while (len < buf.length && (n = in.read(buf, len, buf.length - len)) > 0) {
                len += n;
            }
        } catch (FileNotFoundException e) {
            if (!Files.exists(file)) {
                return null;
            }
            String m = String.valueOf(e.getMessage());
            int open = m.lastIndexOf(" (");
            throw new IOException(file + ": " + (open >= 0 && m.endsWith(")") ? m.substring(open + 2, m.length() - 1) : m), e);
        } catch (IOException e) {
            throw new IOException(file + ": " + reason(e), e);
        }
        return new String(buf, 0, len, StandardCharsets.UTF_8).strip();
    }

    private static String reason(IOException e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
