package dev.nhc.checks.net;

import dev.nhc.checks.DecimalDigits;
import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.capture.ShellPrompt;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code ibstat} output (infiniband-diags, rdma-core): a header per device ({@code CA 'mlx5_0'},
 * or {@code CA: 'mlx5_0'} for {@code ibstat DEV PORT}), its attributes, then per port
 * {@code Port 1:} with {@code State: Active}, {@code Physical state: LinkUp}, {@code Rate: 400} and
 * {@code Link layer: InfiniBand}. Indentation is not relied on (tabs become spaces in tickets).
 *
 * <p>ibstat stops with {@code ibpanic: [pid] main: stat of IB device 'mlx5_8' failed: ...} at the
 * first device it cannot read; with stdout and stderr in one file that line may come before or
 * after what was printed (stdout is buffered). Those lines are kept as notes, the devices printed
 * are judged, and the device it could not read is a port that could not be read. What is not certain is said with its line and never passes: a port block without its
 * state or rate, or missing from its device ({@code Number of ports} says more), is a port that could
 * not be read; a line that is not ibstat's is a problem of the capture as a whole.
 */
public final class IbstatParser {
    private static final Pattern DEVICE = Pattern.compile("(CA|Switch|Router|iWARP RNIC|\\?\\?\\?)(:?) '(.+)'");
    private static final Pattern PORT = Pattern.compile("Port (\\d+):");
    private static final Pattern STAT_FAILED = Pattern.compile("stat of IB device '([^']+)' failed");
    private static final long MAX_BYTES = 4L << 20;
    private static final Map<String, String> STATES = Map.of("Active", IbPort.ACTIVE, "Down", "DOWN",
            "Initializing", "INIT", "Armed", "ARMED");

    private final String source;
    private final List<String> problems = new ArrayList<>();
    private final List<IbPort> ports = new ArrayList<>();
    private final List<String> panics = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();
    /** A port or a device is cut short: what is missing from the capture is not known to be missing from the node. */
    private boolean cut;

    private String device;
    private boolean isCa;
    private int deviceLine;
    private Integer declaredPorts;
    private int portBlocks;

    private Integer port;
    private int portLine;
    private String state;
    private String phys;
    private String rate;
    private String layer;

    private IbstatParser(String source) {
        this.source = source;
    }

    /**
     * Reads a capture file. Throws {@link CaptureFile.Refused} naming the file when it is missing,
     * larger than ibstat output of a node can be (4 MiB; a pipe is bounded while reading), or not text.
     */
    public static IbstatCapture parse(Path file) throws IOException {
        return parse(file, file.toString());
    }

    /** The same, naming the capture {@code shown} in what the report says. */
    public static IbstatCapture parse(Path file, String shown) throws IOException {
        return parse(shown, CaptureFile.readText(file, MAX_BYTES));
    }

    public static IbstatCapture parse(String source, String text) {
        return new IbstatParser(source).read(text);
    }

    private IbstatCapture read(String text) {
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length && problems.size() < 10; i++) {
            line(i + 1, lines[i].strip());
        }
        endDevice();
        if (problems.isEmpty() && seen.isEmpty() && panics.isEmpty()) {
            problems.add("no device header such as CA 'mlx5_0': this is not ibstat output");
        }
        return new IbstatCapture(source, ports, panics, problems, cut || !problems.isEmpty());
    }

    private void line(int n, String line) {
        if (line.isEmpty()) {
            return;
        }
        if (ShellPrompt.isCommand(line)) {
            return; // the command line pasted above the output
        }
        if (line.startsWith("ibpanic:") || line.startsWith("ibwarn:")) {
            panics.add(line);
            Matcher failed = STAT_FAILED.matcher(line);
            if (failed.find()) {
                // a device ibstat knows of and could not read: its ports are not known to be up
                ports.add(IbPort.unreadable(failed.group(1), IbPort.NO_PORT, "line " + n + ": ibstat could not read " + failed.group(1)
                        + " ('" + cut(line) + "')"));
            }
            return;
        }
        Matcher d = DEVICE.matcher(line);
        if (d.matches()) {
            endDevice();
            device = d.group(3);
            isCa = d.group(1).equals("CA");
            deviceLine = n;
            declaredPorts = null;
            portBlocks = 0;
            if (!seen.add(device)) {
                problems.add("line " + n + ": device '" + device + "' appears a second time (two captures in one file?)");
            }
            return;
        }
        Matcher p = PORT.matcher(line);
        if (p.matches()) {
            if (device == null) {
                problems.add("line " + n + ": 'Port " + p.group(1) + ":' before any device header such as CA 'mlx5_0'");
                return;
            }
            endPort();
            port = Integer.valueOf(p.group(1));
            portLine = n;
            portBlocks++;
            return;
        }
        int colon = line.indexOf(':');
        if (colon <= 0 || device == null) {
            problems.add("line " + n + ": expected ibstat output (a device header, 'Port N:' or 'Key: value'), found '" + cut(line) + "'");
            return;
        }
        String key = line.substring(0, colon).strip();
        String value = line.substring(colon + 1).strip();
        if (port == null) {
            if (key.equals("Number of ports")) {
                if (!DecimalDigits.only(value)) {
                    problems.add("line " + n + ": 'Number of ports' is not a number: '" + cut(value) + "'");
                } else {
                    declaredPorts = Integer.valueOf(value);
                }
            }
            return; // CA type, firmware, GUIDs: not judged
        }
        switch (key) {
            case "State" -> state = value;
            case "Physical state" -> phys = value;
            case "Rate" -> rate = value;
            case "Link layer" -> layer = value;
            default -> {
                // Base lid, LMC, SM lid, capability mask, GUID: not judged
            }
        }
    }

    private void endPort() {
        if (port == null) {
            return;
        }
        String where = "line " + portLine + ": port " + device + "/" + port;
        List<String> missing = new ArrayList<>();
        if (state == null) {
            missing.add("State");
        }
        if (phys == null) {
            missing.add("Physical state");
        }
        if (rate == null) {
            missing.add("Rate");
        }
        if (rate != null && Rates.gbps(rate) == null) {
            ports.add(IbPort.unreadable(device, port, where + ": its rate is not a number of Gb/s: '" + cut(rate) + "'"));
        } else if (!missing.isEmpty()) {
            cut = true;
            ports.add(IbPort.unreadable(device, port, where + " has no " + String.join(", ", missing) + ": the capture is cut off there"));
        } else {
            String s = STATES.getOrDefault(state, state.toUpperCase(Locale.ROOT));
            ports.add(new IbPort(device, port, s, phys, Rates.gbps(rate), Rates.speed(rate),
                    layer == null ? "InfiniBand" : layer, null, Map.of(), null));
        }
        port = null;
        state = null;
        phys = null;
        rate = null;
        layer = null;
    }

    private void endDevice() {
        endPort();
        if (device != null && declaredPorts == null && portBlocks == 0) {
            cut = true;
            // a header alone ('ibstat | grep mlx5', or cut right after it): the device has ports nobody has seen
            ports.add(IbPort.unreadable(device, IbPort.NO_PORT, "line " + deviceLine + ": the capture shows " + device
                    + " but none of its ports (cut off, or filtered with grep?)"));
        }
        if (device != null && isCa && declaredPorts != null && portBlocks < declaredPorts) {
            cut = true;
            for (int p = portBlocks + 1; p <= declaredPorts; p++) {
                ports.add(IbPort.unreadable(device, p, "line " + deviceLine + ": CA '" + device + "' has " + declaredPorts + " ports but "
                        + portBlocks + " port blocks follow: port " + p + " is not in the capture (cut off, or 'ibstat -s'? nhc needs the full output)"));
            }
        }
        device = null;
    }

    private static String cut(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
