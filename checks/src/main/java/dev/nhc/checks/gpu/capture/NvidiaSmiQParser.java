package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.RemappedRows;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.PciBusId;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what users attach to tickets: {@code nvidia-smi -q} (whole, or a {@code -d} subset such as
 * {@code PAGE_RETIREMENT}) and {@code nvidia-smi nvlink --status}, into the GPU read model.
 *
 * <p>It is strict where a wrong verdict could come from: indentation must be nvidia-smi's (steps of
 * four spaces), the number of GPU blocks must match "Attached GPUs", every GPU block must be as
 * complete as the first, values nhc judges must parse, and clock-event reasons must be ones
 * nvidia-smi prints. Each problem names its line. Values shown as {@code N/A}, {@code [N/A]} or
 * {@code Not Supported} are absent, as NVML's NOT_SUPPORTED is.
 */
public final class NvidiaSmiQParser {
    static final String HEADER = "==============NVSMI LOG==============";
    private static final int MAX_PROBLEMS = 5;

    private static final Pattern KEY_VALUE = Pattern.compile("^(.*?)\\s+:(?:\\s(.*))?$");
    private static final Pattern NUMBER = Pattern.compile("^(-?[0-9]+(?:\\.[0-9]+)?)\\s*(C|W|x|MiB|%|MHz|mV|KB/s|bank\\(s\\))?$");
    private static final Pattern NVLINK_GPU = Pattern.compile("^GPU (\\d+): (.*?)(?: \\(UUID: ([^)]*)\\))?$");
    private static final Pattern NVLINK_LINK = Pattern.compile("^\\s*Link (\\d+): (.*)$");
    private static final Pattern LINK_SPEED = Pattern.compile("^[0-9.]+ ?GB/s$");
    private static final Pattern PSTATE = Pattern.compile("^P([0-9]|1[0-5])$");

    /** nvmlClocksEventReason bits by the names nvidia-smi prints. */
    private static final Map<String, Long> CLOCK_EVENTS = new LinkedHashMap<>();

    static {
        CLOCK_EVENTS.put("Idle", 0x1L);
        CLOCK_EVENTS.put("Applications Clocks Setting", 0x2L);
        CLOCK_EVENTS.put("SW Power Cap", 0x4L);
        CLOCK_EVENTS.put("HW Slowdown", 0x8L);
        CLOCK_EVENTS.put("Sync Boost", 0x10L);
        CLOCK_EVENTS.put("SW Thermal Slowdown", 0x20L);
        CLOCK_EVENTS.put("HW Thermal Slowdown", 0x40L);
        CLOCK_EVENTS.put("HW Power Brake Slowdown", 0x80L);
        CLOCK_EVENTS.put("Display Clock Setting", 0x100L);
    }

    private final String source;
    private final List<String> problems = new ArrayList<>();

    private NvidiaSmiQParser(String source) {
        this.source = source;
    }

    /** Reads the capture through {@link CaptureFile} (bounded, text only: {@link CaptureFile.Refused} otherwise), then parses it. */
    public static GpuCapture parse(Path file) throws IOException, CaptureParseException {
        return parse(file.toString(), CaptureFile.readText(file));
    }

    /** @param source names the capture in messages (its file name) */
    public static GpuCapture parse(String source, String text) throws CaptureParseException {
        NvidiaSmiQParser p = new NvidiaSmiQParser(source);
        GpuCapture c = p.parseAny(text.replace("\r\n", "\n").split("\n", -1));
        if (!p.problems.isEmpty()) {
            throw new CaptureParseException(source, p.problems);
        }
        return c;
    }

    private void problem(int line, String what) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add((line > 0 ? "line " + line + ": " : "") + what);
        }
    }

    private GpuCapture parseAny(String[] lines) {
        int first = 0;
        while (first < lines.length && lines[first].isBlank()) {
            first++;
        }
        if (first == lines.length) {
            problem(0, "the file is empty");
            return null;
        }
        String head = lines[first].strip();
        if (head.equals(HEADER)) {
            return parseQuery(lines, first + 1);
        }
        if (NVLINK_GPU.matcher(head).matches()) {
            return parseNvlinkStatus(lines, first);
        }
        problem(first + 1, "expected '" + HEADER + "' (nvidia-smi -q) or 'GPU 0: <name> (UUID: ...)' (nvidia-smi nvlink --status), found '"
                + shorten(head) + "'");
        return null;
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }

    // ------------------------------------------------------------------ nvidia-smi -q

    /** One line of {@code nvidia-smi -q}: a "key : value" or a section title, with what is indented under it. */
    static final class Node {
        final String key;
        final String value;
        final int line;
        final List<Node> children = new ArrayList<>();

        Node(String key, String value, int line) {
            this.key = key;
            this.value = value;
            this.line = line;
        }

        Node child(String name) {
            for (Node c : children) {
                if (c.key.equals(name)) {
                    return c;
                }
            }
            return null;
        }

        Node path(String... names) {
            Node n = this;
            for (String name : names) {
                n = n == null ? null : n.child(name);
            }
            return n;
        }

        Node firstChild(String... names) {
            for (String name : names) {
                Node c = child(name);
                if (c != null) {
                    return c;
                }
            }
            return null;
        }

        int lastLine() {
            return children.isEmpty() ? line : children.get(children.size() - 1).lastLine();
        }
    }

    private GpuCapture parseQuery(String[] lines, int from) {
        Node root = new Node("", null, 0);
        List<Node> stack = new ArrayList<>();
        stack.add(root);
        int lastLine = from;
        for (int i = from; i < lines.length; i++) {
            String raw = lines[i];
            int lineNo = i + 1;
            if (raw.isBlank()) {
                continue;
            }
            lastLine = lineNo;
            if (raw.indexOf('\t') >= 0) {
                problem(lineNo, "expected spaces, found a tab (nvidia-smi -q indents with spaces)");
                continue;
            }
            int indent = 0;
            while (raw.charAt(indent) == ' ') {
                indent++;
            }
            if (indent % 4 != 0) {
                problem(lineNo, "expected indentation in steps of 4 spaces, found " + indent);
                continue;
            }
            int level = indent / 4;
            if (level > stack.size() - 1) {
                Node above = stack.get(stack.size() - 1);
                problem(lineNo, "indented " + indent + " spaces, expected at most " + 4 * (stack.size() - 1)
                        + (above == root ? "" : " under '" + above.key + "' (line " + above.line + ")"));
                continue;
            }
            String content = raw.substring(indent).stripTrailing();
            Matcher kv = KEY_VALUE.matcher(content);
            Node node = kv.matches() ? new Node(kv.group(1).strip(), kv.group(2) == null ? "" : kv.group(2).strip(), lineNo)
                    : new Node(content.strip(), null, lineNo);
            while (stack.size() > level + 1) {
                stack.remove(stack.size() - 1);
            }
            stack.get(level).children.add(node);
            stack.add(node);
        }

        String driver = text(root.child("Driver Version"));
        Node attached = root.child("Attached GPUs");
        List<Node> blocks = new ArrayList<>();
        for (Node n : root.children) {
            if (n.value == null && n.key.startsWith("GPU ")) {
                blocks.add(n);
            }
        }
        if (attached == null) {
            problem(0, "no 'Attached GPUs' line: expected one before the first GPU block");
        } else {
            Long announced = number(attached, true);
            if (announced != null && blocks.size() != announced) {
                problem(lastLine, "the capture ends after " + blocks.size() + " of the " + announced + " GPUs 'Attached GPUs' announces (line "
                        + attached.line + "): it is truncated or garbled");
            }
        }
        if (!blocks.isEmpty()) {
            // Each GPU block must end the way the first one does (nvidia-smi prints the same keys for every GPU).
            Node first = blocks.get(0);
            String lastKey = first.children.isEmpty() ? null : first.children.get(first.children.size() - 1).key;
            for (Node b : blocks) {
                if (lastKey != null && b.child(lastKey) == null) {
                    problem(b.lastLine(), "the block of " + b.key + " (line " + b.line + ") ends without '" + lastKey
                            + "', which the first GPU's block has: it is truncated or garbled");
                }
            }
        }

        Set<GpuData> provides = EnumSet.noneOf(GpuData.class);
        List<CapturedGpu> gpus = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            gpus.add(gpu(i, blocks.get(i), provides));
        }
        return new GpuCapture(source, driver, gpus, provides);
    }

    private CapturedGpu gpu(int index, Node b, Set<GpuData> provides) {
        CapturedGpu g = new CapturedGpu(index);
        g.pciBusId = PciBusId.normalize(b.key.substring("GPU ".length()));
        Node busId = b.path("PCI", "Bus Id");
        if (busId != null && text(busId) != null) {
            g.pciBusId = PciBusId.normalize(text(busId));
        }
        if (b.child("Product Name") != null) {
            provide(g, provides, GpuData.INVENTORY);
            g.name = text(b.child("Product Name"));
            g.uuid = text(b.child("GPU UUID"));
            g.persistenceMode = flag(b.child("Persistence Mode"));
        }
        Node eccMode = b.path("ECC Mode", "Current");
        if (eccMode != null) {
            g.eccEnabled = flag(eccMode);
        }
        Node ecc = b.child("ECC Errors");
        if (ecc != null) {
            provide(g, provides, GpuData.ECC);
            ecc(g, ecc.child("Volatile"), EccCounter.VOLATILE);
            ecc(g, ecc.child("Aggregate"), EccCounter.AGGREGATE);
        }
        Node remap = b.child("Remapped Rows");
        Node retired = b.child("Retired Pages");
        if (remap != null || retired != null) {
            provide(g, provides, GpuData.MEMORY_REPAIR);
        }
        if (remap != null) {
            Long corr = number(remap.child("Correctable Error"), false);
            Long unc = number(remap.child("Uncorrectable Error"), false);
            Boolean pending = flag(remap.child("Pending"));
            Boolean failure = flag(remap.child("Remapping Failure Occurred"));
            if (corr != null && unc != null && pending != null && failure != null) {
                g.remappedRows = new RemappedRows(corr, unc, pending, failure);
            }
        }
        if (retired != null) {
            g.retiredSbe = number(retired.child("Single Bit ECC"), false);
            g.retiredDbe = number(retired.child("Double Bit ECC"), false);
            for (Node c : retired.children) {
                if (c.key.startsWith("Pending")) {
                    g.retiredPending = flag(c);
                }
            }
        }
        Node pci = b.child("PCI");
        if (pci != null) {
            provide(g, provides, GpuData.PCIE);
            g.pcieGen = number(pci.path("GPU Link Info", "PCIe Generation", "Current"), false);
            g.pcieMaxGen = number(pci.path("GPU Link Info", "PCIe Generation", "Max"), false);
            g.pcieWidth = number(pci.path("GPU Link Info", "Link Width", "Current"), false);
            g.pcieMaxWidth = number(pci.path("GPU Link Info", "Link Width", "Max"), false);
            g.pcieReplays = number(pci.child("Replays Since Reset"), false);
        }
        // Whether the GPU is busy, for judging a slower PCIe link (a GPU at rest lowers it to save power).
        g.performanceState = performanceState(b.child("Performance State"));
        g.gpuUtilization = number(b.path("Utilization", "Gpu"), false);
        Node temp = b.child("Temperature");
        if (temp != null) {
            provide(g, provides, GpuData.THERMAL);
            g.temperature = number(temp.child("GPU Current Temp"), false);
            g.memoryTemperature = number(temp.child("Memory Current Temp"), false);
            // The "T.Limit" rows of newer drivers are margins, not temperatures: not thresholds.
            putThreshold(g, TemperatureThreshold.SHUTDOWN, temp.child("GPU Shutdown Temp"));
            putThreshold(g, TemperatureThreshold.SLOWDOWN, temp.child("GPU Slowdown Temp"));
            putThreshold(g, TemperatureThreshold.GPU_MAX, temp.child("GPU Max Operating Temp"));
            putThreshold(g, TemperatureThreshold.MEM_MAX, temp.child("Memory Max Operating Temp"));
        }
        Node reasons = b.firstChild("Clocks Event Reasons", "Clocks Throttle Reasons");
        if (reasons != null) {
            provide(g, provides, GpuData.THERMAL);
            g.clocksEventReasons = clockEvents(reasons);
        }
        Node power = b.firstChild("GPU Power Readings", "Power Readings");
        if (power != null) {
            provide(g, provides, GpuData.POWER);
            Double draw = decimal(power.firstChild("Power Draw", "Instantaneous Power Draw", "Average Power Draw"));
            Double limit = decimal(power.firstChild("Current Power Limit", "Enforced Power Limit"));
            g.powerMilliwatts = draw == null ? null : Math.round(draw * 1000);
            g.powerLimitMilliwatts = limit == null ? null : Math.round(limit * 1000);
        }
        Node fabric = b.child("Fabric");
        if (fabric != null) {
            provide(g, provides, GpuData.FABRIC);
            g.fabric = CapturedFabric.parse(fabric, this::problem);
        }
        return g;
    }

    /** The capture holds this kind of data, for this GPU among others. */
    private static void provide(CapturedGpu g, Set<GpuData> provides, GpuData kind) {
        provides.add(kind);
        g.holds.add(kind);
    }

    /** "P8" is 8; N/A or Unknown is absent; anything else is not what nvidia-smi prints. */
    private Long performanceState(Node n) {
        String v = text(n);
        if (v == null || v.equalsIgnoreCase("Unknown")) {
            return null;
        }
        Matcher m = PSTATE.matcher(v);
        if (!m.matches()) {
            problem(n.line, "expected a performance state P0 to P15 for '" + n.key + "', found '" + shorten(v) + "'");
            return null;
        }
        return Long.parseLong(m.group(1));
    }

    private void putThreshold(CapturedGpu g, TemperatureThreshold t, Node n) {
        Long v = number(n, false);
        if (v != null) {
            g.thresholds.put(t, v);
        }
    }

    private void ecc(CapturedGpu g, Node section, EccCounter counter) {
        if (section == null) {
            return;
        }
        Node single = section.child("Single Bit");
        Node dbl = section.child("Double Bit");
        if (single != null || dbl != null) {
            // before driver 5xx: per error type, then per location
            for (var e : Map.of(EccError.CORRECTED, single == null ? new Node("", null, 0) : single,
                    EccError.UNCORRECTED, dbl == null ? new Node("", null, 0) : dbl).entrySet()) {
                put(g, counter, e.getKey(), null, number(e.getValue().child("Total"), false));
                put(g, counter, e.getKey(), EccBlock.DRAM, number(e.getValue().child("Device Memory"), false));
            }
            return;
        }
        Long sramC = number(section.child("SRAM Correctable"), false);
        Long sramU = sum(number(section.child("SRAM Uncorrectable"), false), number(section.child("SRAM Uncorrectable Parity"), false),
                number(section.child("SRAM Uncorrectable SEC-DED"), false));
        Long dramC = number(section.child("DRAM Correctable"), false);
        Long dramU = number(section.child("DRAM Uncorrectable"), false);
        put(g, counter, EccError.CORRECTED, EccBlock.SRAM, sramC);
        put(g, counter, EccError.UNCORRECTED, EccBlock.SRAM, sramU);
        put(g, counter, EccError.CORRECTED, EccBlock.DRAM, dramC);
        put(g, counter, EccError.UNCORRECTED, EccBlock.DRAM, dramU);
        put(g, counter, EccError.CORRECTED, null, sum(sramC, dramC));
        put(g, counter, EccError.UNCORRECTED, null, sum(sramU, dramU));
    }

    private static void put(CapturedGpu g, EccCounter c, EccError t, EccBlock l, Long v) {
        if (v != null) {
            g.ecc.put(CapturedGpu.eccKey(c, t, l), v);
        }
    }

    private static Long sum(Long... values) {
        Long total = null;
        for (Long v : values) {
            if (v != null) {
                total = (total == null ? 0 : total) + v;
            }
        }
        return total;
    }

    private Long clockEvents(Node section) {
        long mask = 0;
        boolean any = false;
        List<Node> todo = new ArrayList<>(section.children);
        while (!todo.isEmpty()) {
            Node n = todo.remove(0);
            todo.addAll(0, n.children);   // HW Thermal / HW Power Brake sit indented under HW Slowdown
            Long bit = CLOCK_EVENTS.get(n.key);
            if (bit == null) {
                problem(n.line, "expected a clock event reason (" + String.join(", ", CLOCK_EVENTS.keySet()) + "), found '" + shorten(n.key) + "'");
                continue;
            }
            Boolean active = flag(n);
            if (active != null) {
                any = true;
                mask |= active ? bit : 0;
            }
        }
        return any ? mask : null;
    }

    // ------------------------------------------------------------------ values

    private static boolean absent(String v) {
        if (v == null) {
            return true;
        }
        String s = v.strip();
        return s.isEmpty() || s.equalsIgnoreCase("N/A") || s.equalsIgnoreCase("[N/A]") || s.equalsIgnoreCase("Not Supported")
                || s.equalsIgnoreCase("[Not Supported]") || s.equalsIgnoreCase("Unknown Error") || s.startsWith("Requested functionality");
    }

    private static String text(Node n) {
        return n == null || absent(n.value) ? null : n.value.strip();
    }

    private Long number(Node n, boolean required) {
        Double d = decimal(n);
        if (d == null) {
            if (required && n != null && text(n) == null) {
                problem(n.line, "expected a number for '" + n.key + "', found '" + n.value + "'");
            }
            return null;
        }
        return Math.round(d);
    }

    private Double decimal(Node n) {
        if (n == null) {
            return null;
        }
        if (n.value == null) {
            problem(n.line, "expected '" + n.key + " : <value>', found a section title");
            return null;
        }
        if (absent(n.value)) {
            return null;
        }
        Matcher m = NUMBER.matcher(n.value.strip());
        if (!m.matches()) {
            problem(n.line, "expected a number for '" + n.key + "', found '" + shorten(n.value) + "'");
            return null;
        }
        return Double.parseDouble(m.group(1));
    }

    private Boolean flag(Node n) {
        if (n == null || n.value == null || absent(n.value)) {
            return null;
        }
        switch (n.value.strip().toLowerCase(Locale.ROOT)) {
            case "yes", "enabled", "active" -> {
                return true;
            }
            case "no", "disabled", "not active" -> {
                return false;
            }
            default -> {
                problem(n.line, "expected Yes/No, Enabled/Disabled or Active/Not Active for '" + n.key + "', found '" + shorten(n.value) + "'");
                return null;
            }
        }
    }

    // ------------------------------------------------------------------ nvidia-smi nvlink --status

    private GpuCapture parseNvlinkStatus(String[] lines, int from) {
        Map<Integer, CapturedGpu> byIndex = new LinkedHashMap<>();
        CapturedGpu current = null;
        for (int i = from; i < lines.length; i++) {
            String line = lines[i].strip();
            int lineNo = i + 1;
            if (line.isEmpty()) {
                continue;
            }
            Matcher gpu = NVLINK_GPU.matcher(line);
            Matcher link = NVLINK_LINK.matcher(line);
            if (gpu.matches()) {
                int index = Integer.parseInt(gpu.group(1));
                current = new CapturedGpu(index);
                current.name = gpu.group(2).strip();
                current.uuid = gpu.group(3);
                current.nvlinks = new ArrayList<>();
                current.holds.add(GpuData.NVLINK);
                if (byIndex.put(index, current) != null) {
                    problem(lineNo, "GPU " + index + " appears twice");
                }
            } else if (current == null) {
                problem(lineNo, "expected 'GPU N: <name> (UUID: ...)', found '" + shorten(line) + "'");
            } else if (link.matches()) {
                int n = Integer.parseInt(link.group(1));
                String state = link.group(2).strip();
                Boolean up = LINK_SPEED.matcher(state).matches() ? Boolean.TRUE : state.equals("<inactive>") ? Boolean.FALSE : null;
                if (up == null) {
                    problem(lineNo, "expected a link speed such as '25 GB/s' or '<inactive>', found '" + shorten(state) + "'");
                    continue;
                }
                while (current.nvlinks.size() <= n) {
                    current.nvlinks.add(null);
                }
                current.nvlinks.set(n, up);
            } else if (line.startsWith("NVML: Unable to retrieve NVLink information as all links are inactive")) {
                // How many links there are is not shown; one inactive link stands for "all down".
                current.nvlinks.add(Boolean.FALSE);
            } else {
                problem(lineNo, "expected 'Link N: <speed>' for GPU " + current.index + ", found '" + shorten(line) + "'");
            }
        }
        // Only the GPUs it shows: 'nvidia-smi nvlink -s -i 7' is about GPU 7 and says nothing about the others.
        return new GpuCapture(source, null, new ArrayList<>(byIndex.values()), EnumSet.of(GpuData.NVLINK));
    }
}
