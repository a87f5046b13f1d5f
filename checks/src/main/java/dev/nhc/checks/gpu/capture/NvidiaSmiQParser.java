package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.RemappedRows;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.capture.SmiQTree.Node;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi -q} (whole, or a {@code -d} subset such as {@code PAGE_RETIREMENT}) into
 * the GPU read model, as admins attach it: with or without its {@code NVSMI LOG} header, cut off,
 * or only a part of one GPU's block.
 *
 * <p>It is strict about what it reads and honest about what it could not: indentation must be
 * nvidia-smi's (steps of four spaces), values nhc judges must parse, clock-event reasons must be
 * ones nvidia-smi prints. Anything else — a line out of place, a value that does not parse, GPUs
 * after a cut ("Attached GPUs" says 8, the capture shows 3), a block that ends before the first
 * one did — is a {@link GpuCapture.Gap} naming its line, which the probes report as "could not
 * read": a partial capture is judged on what it holds, and never passes for what it lacks.
 * nvidia-smi's error lines in it ("Unable to determine the device handle for GPU…") are GPUs it
 * could not open ({@link NvidiaSmiErrors}). Values shown as {@code N/A}, {@code [N/A]} or
 * {@code Not Supported} are absent, as NVML's NOT_SUPPORTED is.
 */
final class NvidiaSmiQParser {
    static final String HEADER = "==============NVSMI LOG==============";
    private static final Pattern NUMBER = Pattern.compile("^(-?[0-9]+(?:\\.[0-9]+)?)\\s*(C|W|x|MiB|%|MHz|mV|KB/s|bank\\(s\\))?$");
    private static final Pattern PSTATE = Pattern.compile("^P([0-9]|1[0-5])$");
    /** Keys nvidia-smi prints before the GPU blocks: a capture that starts with one is the top of {@code -q} without its header. */
    private static final Set<String> TOP_KEYS = Set.of("Timestamp", "Driver Version", "CUDA Version", "Attached GPUs", "HIC Info");
    private static final Pattern BLOCK = Pattern.compile("^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]$");

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

    /** The kind of data each section of a GPU block holds, for saying what a problem in it leaves unread. */
    private static final Map<String, GpuData> SECTIONS = new LinkedHashMap<>();

    static {
        for (String s : List.of("Product Name", "GPU UUID", "Persistence Mode")) {
            SECTIONS.put(s, GpuData.INVENTORY);
        }
        SECTIONS.put("ECC Mode", GpuData.ECC);
        SECTIONS.put("ECC Errors", GpuData.ECC);
        SECTIONS.put("Remapped Rows", GpuData.MEMORY_REPAIR);
        SECTIONS.put("Retired Pages", GpuData.MEMORY_REPAIR);
        SECTIONS.put("PCI", GpuData.PCIE);
        SECTIONS.put("Performance State", GpuData.PCIE);
        SECTIONS.put("Utilization", GpuData.PCIE);
        SECTIONS.put("Temperature", GpuData.THERMAL);
        SECTIONS.put("Clocks Event Reasons", GpuData.THERMAL);
        SECTIONS.put("Clocks Throttle Reasons", GpuData.THERMAL);
        SECTIONS.put("GPU Power Readings", GpuData.POWER);
        SECTIONS.put("Power Readings", GpuData.POWER);
        SECTIONS.put("Fabric", GpuData.FABRIC);
    }

    /** The section names in lower case: a part pasted or typed by hand may not keep nvidia-smi's capitals. */
    private static final Set<String> SECTION_NAMES = SECTIONS.keySet().stream().map(k -> k.toLowerCase(java.util.Locale.ROOT))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    private final String source;
    private final List<GpuCapture.Gap> gaps = new ArrayList<>();
    /** The GPU and the kind of data being read, for the gap a problem leaves. */
    private CapturedGpu current;
    private GpuData currentKind;
    /** Lines out of place while the tree was built, attributed to their GPU block afterwards. */
    private final List<int[]> misplaced = new ArrayList<>();
    private final List<String> misplacedText = new ArrayList<>();

    private NvidiaSmiQParser(String source) {
        this.source = source;
    }

    /** Whether the text looks like {@code nvidia-smi -q}: its header, or without it, the top keys, a GPU block, or a part of one. */
    static boolean looksLike(String firstLine) {
        String head = firstLine.strip();
        if (head.equals(HEADER) || BLOCK.matcher(head).matches()) {
            return true;
        }
        String key = key(head);
        return TOP_KEYS.contains(key) || SECTION_NAMES.contains(key.toLowerCase(java.util.Locale.ROOT));
    }

    /** The key of a "key : value" line, or the whole line (a section title). */
    private static String key(String head) {
        int colon = head.indexOf(" :");
        return colon > 0 ? head.substring(0, colon).strip() : head;
    }

    /** @param first the index of the first line with text */
    static GpuCapture parse(String source, String[] lines, int first) {
        return new NvidiaSmiQParser(source).read(lines, first);
    }

    private GpuCapture read(String[] lines, int first) {
        String head = lines[first].strip();
        int from = head.equals(HEADER) ? first + 1 : first;
        int indent = SmiQTree.indent(lines[first]);
        // A part of one GPU's block: its first line indented, or a section of the block pasted flush left.
        boolean fragment = !head.equals(HEADER) && !BLOCK.matcher(head).matches()
                && (indent > 0 || !TOP_KEYS.contains(key(head)));
        int shift = fragment ? -indent : 0;
        Node root = SmiQTree.build(lines, from, shift, (line, what) -> {
            misplaced.add(new int[] {line});
            misplacedText.add("line " + line + ": " + what);
        });
        if (fragment) {
            // What it shows belongs to one GPU the capture does not name.
            Node gpu = new Node("GPU ?", null, from + 1);
            gpu.children.addAll(root.children);
            root.children.clear();
            root.children.add(gpu);
        }

        String driver = SmiQValues.text(root.child("Driver Version"));
        Integer announced = null;
        Node attached = root.child("Attached GPUs");
        if (attached != null) {
            Long n = number(attached);
            announced = n == null ? null : n.intValue();
        }
        String unavailable = null;
        boolean noDevices = false;
        List<CapturedGpu> gpus = new ArrayList<>();
        Set<GpuData> provides = EnumSet.noneOf(GpuData.class);
        List<Node> blocks = new ArrayList<>();
        int slot = 0;
        for (Node n : root.children) {
            NvidiaSmiErrors.Line error = n.value == null ? NvidiaSmiErrors.recognise(n.key) : null;
            if (error != null) {
                switch (error.meaning()) {
                    case LOST_GPU -> gpus.add(CapturedGpu.lost(fragment ? -1 - slot : slot, error));
                    case UNREADABLE_GPU -> gaps.add(new GpuCapture.Gap(slot, error.pciBusId(), GpuCapture.ALL, error.text()));
                    case NVML_UNAVAILABLE -> unavailable = error.text();
                    case NO_DEVICES -> noDevices = true;
                    case DETAIL -> {
                        continue;
                    }
                }
                if (error.meaning() == NvidiaSmiErrors.Meaning.LOST_GPU || error.meaning() == NvidiaSmiErrors.Meaning.UNREADABLE_GPU) {
                    slot++;
                }
                continue;
            }
            if (n.value == null && (n.key.startsWith("GPU ") || fragment)) {
                int index = fragment ? -1 : slot++;
                blocks.add(n);
                gpus.add(gpu(index, n, provides));
            }
        }
        attributeMisplaced(blocks, gpus);
        // 'nvidia-smi -q -i 0' announces every GPU and shows one, whole: a choice, not a cut.
        boolean selection = announced != null && slot < announced && !blocks.isEmpty() && endsWhole(blocks.get(blocks.size() - 1));
        if (announced != null && slot != announced && !fragment && !selection) {
            int lastLine = root.lastLine();
            gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, slot < announced
                    ? "the capture ends after " + slot + " of the " + announced + " GPUs 'Attached GPUs' announces (line " + attached.line
                            + ", last line " + lastLine + "): " + (announced - slot == 1 ? "GPU " + slot + " is" : "GPUs " + slot + " to "
                            + (announced - 1) + " are") + " not in it"
                    : "the capture shows " + slot + " GPUs but 'Attached GPUs' (line " + attached.line + ") announces " + announced
                            + ": are two captures pasted into one?"));
        }
        cutBlocks(blocks, gpus);
        if (noDevices) {
            provides.add(GpuData.INVENTORY);
            announced = 0;
        }
        if (!gpus.isEmpty() && gpus.stream().anyMatch(g -> g.lost != null) && provides.isEmpty()) {
            provides.addAll(GpuCapture.ALL);
        }
        if (unavailable != null) {
            provides.addAll(GpuCapture.ALL);
        }
        if (gpus.isEmpty() && unavailable == null && !noDevices && gaps.isEmpty()) {
            gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, "no GPU block (a line 'GPU 00000000:3B:00.0' and what is indented under it)"
                    + " in the capture: nvidia-smi -q lists one per GPU"));
        } else if (provides.isEmpty() && unavailable == null && !noDevices && gpus.stream().allMatch(g -> g.lost == null)) {
            gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, "nothing nhc judges in it (no section such as ECC Errors, Remapped Rows,"
                    + " Retired Pages, Temperature or Power Readings)"));
        }
        return new GpuCapture(source, driver, gpus, provides, gaps, unavailable, announced);
    }

    /** A block that ends with "Processes", the last section nvidia-smi prints for a GPU, was not cut off. */
    private static boolean endsWhole(Node block) {
        Node last = block.last();
        return last != null && last.key.equalsIgnoreCase("Processes");
    }

    /** Lines that could not be placed in the tree leave their GPU block (or, before any, every GPU) unread. */
    private void attributeMisplaced(List<Node> blocks, List<CapturedGpu> gpus) {
        for (int i = 0; i < misplaced.size(); i++) {
            int line = misplaced.get(i)[0];
            CapturedGpu owner = null;
            for (int b = 0; b < blocks.size(); b++) {
                if (line > blocks.get(b).line) {
                    owner = gpus.stream().filter(g -> g.lost == null).skip(b).findFirst().orElse(null);
                }
            }
            gaps.add(owner == null ? new GpuCapture.Gap(null, null, GpuCapture.ALL, misplacedText.get(i))
                    : new GpuCapture.Gap(owner.index, owner.pciBusId, GpuCapture.ALL, owner.label() + ": " + misplacedText.get(i)));
        }
    }

    /**
     * nvidia-smi prints the same sections for every GPU: a block that ends before the first one did
     * was cut off, and what it lacks (with the section it was cut in) is not known.
     */
    private void cutBlocks(List<Node> blocks, List<CapturedGpu> gpus) {
        if (blocks.size() < 2) {
            return;
        }
        Node first = blocks.get(0);
        Node last = first.last();
        if (last == null) {
            return;
        }
        List<CapturedGpu> read = gpus.stream().filter(g -> g.lost == null).toList();
        for (int b = 1; b < blocks.size(); b++) {
            Node block = blocks.get(b);
            if (block.child(last.key) != null) {
                continue;
            }
            CapturedGpu g = read.get(b);
            Set<GpuData> missing = EnumSet.noneOf(GpuData.class);
            for (Node section : first.children) {
                if (SECTIONS.containsKey(section.key) && block.child(section.key) == null) {
                    missing.add(SECTIONS.get(section.key));
                }
            }
            Node cutIn = block.last();
            if (cutIn != null && SECTIONS.containsKey(cutIn.key)) {
                missing.add(SECTIONS.get(cutIn.key));
            }
            gaps.add(new GpuCapture.Gap(g.index, g.pciBusId, missing, g.label() + ": its block (line " + block.line + ") ends at line "
                    + block.lastLine() + " without '" + last.key + "', which the first GPU's block has: the capture is cut off there"));
        }
    }

    private void problem(int line, String what) {
        Set<GpuData> kinds = currentKind == null ? GpuCapture.ALL : EnumSet.of(currentKind);
        String text = (line > 0 ? "line " + line + ": " : "") + what;
        gaps.add(current == null ? new GpuCapture.Gap(null, null, kinds, text)
                : new GpuCapture.Gap(current.index, current.pciBusId, kinds, current.label() + ": " + text));
    }

    private void section(GpuData kind) {
        currentKind = kind;
    }

    private CapturedGpu gpu(int index, Node b, Set<GpuData> provides) {
        CapturedGpu g = new CapturedGpu(index);
        current = g;
        currentKind = null;
        if (b.key.startsWith("GPU ") && !b.key.equals("GPU ?")) {
            g.pciBusId = PciBusId.normalize(b.key.substring("GPU ".length()));
        }
        Node busId = b.path("PCI", "Bus Id");
        if (busId != null && SmiQValues.text(busId) != null) {
            g.pciBusId = PciBusId.normalize(SmiQValues.text(busId));
        }
        if (b.child("Product Name") != null) {
            section(GpuData.INVENTORY);
            provide(g, provides, GpuData.INVENTORY);
            g.name = SmiQValues.text(b.child("Product Name"));
            g.uuid = SmiQValues.text(b.child("GPU UUID"));
            g.persistenceMode = flag(b.child("Persistence Mode"));
        }
        Node eccMode = b.path("ECC Mode", "Current");
        section(GpuData.ECC);
        if (eccMode != null) {
            g.eccEnabled = flag(eccMode);
        }
        Node ecc = b.child("ECC Errors");
        if (ecc != null) {
            provide(g, provides, GpuData.ECC);
            ecc(g, ecc.child("Volatile"), EccCounter.VOLATILE);
            ecc(g, ecc.child("Aggregate"), EccCounter.AGGREGATE);
        }
        memoryRepair(g, b, provides);
        Node pci = b.child("PCI");
        section(GpuData.PCIE);
        if (pci != null) {
            provide(g, provides, GpuData.PCIE);
            g.pcieGen = number(pci.path("GPU Link Info", "PCIe Generation", "Current"));
            g.pcieMaxGen = number(pci.path("GPU Link Info", "PCIe Generation", "Max"));
            g.pcieWidth = number(pci.path("GPU Link Info", "Link Width", "Current"));
            g.pcieMaxWidth = number(pci.path("GPU Link Info", "Link Width", "Max"));
            g.pcieReplays = number(pci.child("Replays Since Reset"));
        }
        // Whether the GPU is busy, for judging a slower PCIe link (a GPU at rest lowers it to save power).
        g.performanceState = performanceState(b.child("Performance State"));
        g.gpuUtilization = number(b.path("Utilization", "Gpu"));
        thermal(g, b, provides);
        Node power = b.firstChild("GPU Power Readings", "Power Readings");
        section(GpuData.POWER);
        if (power != null) {
            provide(g, provides, GpuData.POWER);
            Double draw = decimal(power.firstChild("Power Draw", "Instantaneous Power Draw", "Average Power Draw"));
            Double limit = decimal(power.firstChild("Current Power Limit", "Enforced Power Limit"));
            g.powerMilliwatts = draw == null ? null : Math.round(draw * 1000);
            g.powerLimitMilliwatts = limit == null ? null : Math.round(limit * 1000);
        }
        Node fabric = b.child("Fabric");
        section(GpuData.FABRIC);
        if (fabric != null) {
            provide(g, provides, GpuData.FABRIC);
            g.fabric = CapturedFabric.parse(fabric, this::problem);
        }
        current = null;
        currentKind = null;
        return g;
    }

    private void memoryRepair(CapturedGpu g, Node b, Set<GpuData> provides) {
        section(GpuData.MEMORY_REPAIR);
        Node remap = b.child("Remapped Rows");
        Node retired = b.child("Retired Pages");
        if (remap != null || retired != null) {
            provide(g, provides, GpuData.MEMORY_REPAIR);
        }
        if (remap != null) {
            Long corr = number(remap.child("Correctable Error"));
            Long unc = number(remap.child("Uncorrectable Error"));
            Boolean pending = flag(remap.child("Pending"));
            Boolean failure = flag(remap.child("Remapping Failure Occurred"));
            if (corr != null && unc != null && pending != null && failure != null) {
                g.remappedRows = new RemappedRows(corr, unc, pending, failure);
            }
        }
        if (retired != null) {
            g.retiredSbe = number(retired.child("Single Bit ECC"));
            g.retiredDbe = number(retired.child("Double Bit ECC"));
            for (Node c : retired.children) {
                if (c.key.startsWith("Pending")) {
                    g.retiredPending = flag(c);
                }
            }
        }
    }

    private void thermal(CapturedGpu g, Node b, Set<GpuData> provides) {
        section(GpuData.THERMAL);
        Node temp = b.child("Temperature");
        if (temp != null) {
            provide(g, provides, GpuData.THERMAL);
            g.temperature = number(temp.child("GPU Current Temp"));
            g.memoryTemperature = number(temp.child("Memory Current Temp"));
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
    }

    /** The capture holds this kind of data, for this GPU among others. */
    private static void provide(CapturedGpu g, Set<GpuData> provides, GpuData kind) {
        provides.add(kind);
        g.holds.add(kind);
    }

    /** "P8" is 8; N/A or Unknown is absent; anything else is not what nvidia-smi prints. */
    private Long performanceState(Node n) {
        String v = SmiQValues.text(n);
        if (v == null || v.equalsIgnoreCase("Unknown")) {
            return null;
        }
        Matcher m = PSTATE.matcher(v);
        if (!m.matches()) {
            problem(n.line, "expected a performance state P0 to P15 for '" + n.key + "', found '" + SmiQValues.shorten(v) + "'");
            return null;
        }
        return Long.parseLong(m.group(1));
    }

    private void putThreshold(CapturedGpu g, TemperatureThreshold t, Node n) {
        Long v = number(n);
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
                put(g, counter, e.getKey(), null, number(e.getValue().child("Total")));
                put(g, counter, e.getKey(), EccBlock.DRAM, number(e.getValue().child("Device Memory")));
            }
            return;
        }
        Long sramC = number(section.child("SRAM Correctable"));
        Long sramU = sum(number(section.child("SRAM Uncorrectable")), number(section.child("SRAM Uncorrectable Parity")),
                number(section.child("SRAM Uncorrectable SEC-DED")));
        Long dramC = number(section.child("DRAM Correctable"));
        Long dramU = number(section.child("DRAM Uncorrectable"));
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
                problem(n.line, "expected a clock event reason (" + String.join(", ", CLOCK_EVENTS.keySet()) + "), found '"
                        + SmiQValues.shorten(n.key) + "'");
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

    // ------------------------------------------------------------------ values nhc judges

    private Long number(Node n) {
        Double d = decimal(n);
        return d == null ? null : Math.round(d);
    }

    private Double decimal(Node n) {
        if (n == null) {
            return null;
        }
        if (n.value == null) {
            problem(n.line, "expected '" + n.key + " : <value>', found a section title");
            return null;
        }
        if (unreadable(n) || SmiQValues.absent(n.value)) {
            return null;
        }
        Matcher m = NUMBER.matcher(n.value.strip());
        if (!m.matches()) {
            problem(n.line, "expected a number for '" + n.key + "', found '" + SmiQValues.shorten(n.value) + "'");
            return null;
        }
        return Double.parseDouble(m.group(1));
    }

    private Boolean flag(Node n) {
        if (n == null || n.value == null || unreadable(n) || SmiQValues.absent(n.value)) {
            return null;
        }
        Boolean b = SmiQValues.flag(n.value);
        if (b == null) {
            problem(n.line, "expected Yes/No, Enabled/Disabled or Active/Not Active for '" + n.key + "', found '"
                    + SmiQValues.shorten(n.value) + "'");
        }
        return b;
    }

    /** nvidia-smi prints NVML's error for a value it could not read ("Unknown Error", "GPU requires reset"): not absent, unknown. */
    private boolean unreadable(Node n) {
        String why = SmiQValues.error(n.value);
        if (why != null) {
            problem(n.line, "'" + n.key + "' reads '" + why + "': nvidia-smi could not read it");
            return true;
        }
        return false;
    }
}
