package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.capture.SmiQTree.Node;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    /** Keys nvidia-smi prints before the GPU blocks: a capture that starts with one is the top of {@code -q} without its header. */
    private static final Set<String> TOP_KEYS = Set.of("Timestamp", "Driver Version", "CUDA Version", "Attached GPUs", "HIC Info");
    private static final Pattern BLOCK = Pattern.compile("^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]$");

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
    private final SmiQReadings values;
    private final SmiQGpuBlockReader blockReader;
    /** Lines out of place while the tree was built, attributed to their GPU block afterwards. */
    private final List<int[]> misplaced = new ArrayList<>();
    private final List<String> misplacedText = new ArrayList<>();

    private NvidiaSmiQParser(String source) {
        this.source = source;
        SmiQGaps gapLog = new SmiQGaps(gaps);
        this.values = new SmiQReadings(gapLog);
        this.blockReader = new SmiQGpuBlockReader(gapLog, values);
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
            Long n = values.number(attached);
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
                gpus.add(blockReader.read(index, n, provides));
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
}
