package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.RemappedRows;
import dev.nhc.checks.gpu.PciBusId;

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
 * Reads {@code nvidia-smi --query-gpu=FIELDS --format=csv}: a header of nvidia-smi's field names
 * (with their unit, {@code utilization.gpu [%]}), then one row per GPU. Which columns there are is
 * the admin's choice: each field nhc knows feeds its probe, the others are left alone, and a probe
 * whose fields are all missing is skipped. {@code [N/A]} and {@code [Not Supported]} are absent;
 * an NVML error in a cell ({@code [Unknown Error]}, {@code [GPU requires reset]}) is a
 * {@link GpuCapture.Gap}. Without the header ({@code csv,noheader}) the columns cannot be told
 * apart, and the capture is not read.
 */
final class QueryGpuCsvParser {
    private static final Pattern UNIT = Pattern.compile("\\s*\\[[^]]*]\\s*$");
    private static final Pattern NUMBER = Pattern.compile("^(-?\\d+(?:\\.\\d+)?)\\s*(W|MiB|%|MHz|C)?$");
    private static final Pattern ECC = Pattern.compile(
            "ecc\\.errors\\.(corrected|uncorrected)\\.(volatile|aggregate)\\.(total|device_memory|dram|sram|sram\\.uncorrectable_(?:parity|secded))");
    /** Field names that only a --query-gpu header has: at least one of them makes a CSV line a header. */
    private static final Set<String> KNOWN = Set.of("index", "name", "pci.bus_id", "uuid", "driver_version", "pstate", "temperature.gpu",
            "utilization.gpu", "memory.total", "persistence_mode", "serial", "gpu_bus_id", "timestamp");

    private QueryGpuCsvParser() {
    }

    /** A header of nvidia-smi field names, comma-separated. */
    static boolean looksLike(String firstLine) {
        String[] cols = firstLine.split(",");
        if (cols.length < 2) {
            return false;
        }
        int known = 0;
        for (String c : cols) {
            String f = field(c);
            if (KNOWN.contains(f) || f.startsWith("ecc.") || f.startsWith("clocks") || f.startsWith("power.") || f.startsWith("pcie.")
                    || f.startsWith("retired_pages.") || f.startsWith("remapped_rows.") || f.startsWith("temperature.")) {
                known++;
            }
        }
        return known >= 2;
    }

    private static String field(String column) {
        return UNIT.matcher(column.strip()).replaceAll("").strip().toLowerCase(Locale.ROOT);
    }

    static GpuCapture parse(String source, String[] lines, int first) {
        String[] header = lines[first].split(",", -1);
        List<String> fields = new ArrayList<>();
        for (String h : header) {
            fields.add(field(h));
        }
        List<CapturedGpu> gpus = new ArrayList<>();
        List<GpuCapture.Gap> gaps = new ArrayList<>();
        Set<GpuData> provides = EnumSet.noneOf(GpuData.class);
        String driver = null;
        int slot = 0;
        for (int i = first + 1; i < lines.length; i++) {
            String line = lines[i];
            int lineNo = i + 1;
            if (line.isBlank()) {
                continue;
            }
            NvidiaSmiErrors.Line error = NvidiaSmiErrors.recognise(line);
            if (error != null && error.meaning() == NvidiaSmiErrors.Meaning.LOST_GPU) {
                gpus.add(CapturedGpu.lost(-1 - slot++, error));
                continue;
            }
            String[] cells = line.split(",", -1);
            if (cells.length != fields.size()) {
                gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, "line " + lineNo + ": " + cells.length + " values where the header (line "
                        + (first + 1) + ") names " + fields.size() + " fields"));
                continue;
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < cells.length; c++) {
                row.put(fields.get(c), cells[c].strip());
            }
            Row r = new Row(row, lineNo, slot++, gaps, provides);
            gpus.add(r.gpu);
            if (driver == null && r.text("driver_version") != null) {
                driver = r.text("driver_version");
            }
        }
        if (gpus.isEmpty() && gaps.isEmpty()) {
            gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, "a --query-gpu header without any GPU row"));
        }
        return new GpuCapture(source, driver, gpus, provides, gaps, null, null);
    }

    /** One GPU's row: each known field into the GPU, each unreadable cell into a gap. */
    private static final class Row {
        final Map<String, String> cells;
        final int line;
        final CapturedGpu gpu;
        final List<GpuCapture.Gap> gaps;
        final Set<GpuData> provides;

        Row(Map<String, String> cells, int line, int slot, List<GpuCapture.Gap> gaps, Set<GpuData> provides) {
            this.cells = cells;
            this.line = line;
            this.gaps = gaps;
            this.provides = provides;
            Long index = number("index", GpuData.INVENTORY);
            gpu = new CapturedGpu(index == null ? slot : index.intValue());
            gpu.pciBusId = PciBusId.normalize(text("pci.bus_id"));
            if (cells.containsKey("name") || cells.containsKey("uuid") || cells.containsKey("persistence_mode")) {
                provide(GpuData.INVENTORY);
                gpu.name = text("name");
                gpu.uuid = text("uuid");
                gpu.persistenceMode = flag("persistence_mode", GpuData.INVENTORY);
            }
            gpu.eccEnabled = flag("ecc.mode.current", GpuData.ECC);
            for (String f : cells.keySet()) {
                Matcher m = ECC.matcher(f);
                if (m.matches()) {
                    Long v = number(f, GpuData.ECC);
                    if (v != null) {
                        provide(GpuData.ECC);
                        EccCounter counter = m.group(2).equals("volatile") ? EccCounter.VOLATILE : EccCounter.AGGREGATE;
                        EccError type = m.group(1).equals("corrected") ? EccError.CORRECTED : EccError.UNCORRECTED;
                        EccBlock where = switch (m.group(3)) {
                            case "total" -> null;
                            case "device_memory", "dram" -> EccBlock.DRAM;
                            default -> EccBlock.SRAM;
                        };
                        String key = CapturedGpu.eccKey(counter, type, where);
                        gpu.ecc.merge(key, v, Math::max); // device_memory and dram are one counter under two names
                    }
                }
            }
            memoryRepair();
            pcie();
            Long temp = number("temperature.gpu", GpuData.THERMAL);
            if (temp != null) {
                provide(GpuData.THERMAL);
                gpu.temperature = temp;
                gpu.memoryTemperature = number("temperature.memory", GpuData.THERMAL);
            }
            Long draw = first("power.draw", "power.draw.instant", "power.draw.average");
            Long limit = first("enforced.power.limit", "power.limit");
            if (draw != null || limit != null) {
                provide(GpuData.POWER);
                gpu.powerMilliwatts = draw;
                gpu.powerLimitMilliwatts = limit;
            }
        }

        private void memoryRepair() {
            Long sbe = first("retired_pages.single_bit_ecc.count", "retired_pages.sbe");
            Long dbe = first("retired_pages.double_bit.count", "retired_pages.dbe");
            Boolean pending = flag("retired_pages.pending", GpuData.MEMORY_REPAIR);
            Long corr = number("remapped_rows.correctable", GpuData.MEMORY_REPAIR);
            Long unc = number("remapped_rows.uncorrectable", GpuData.MEMORY_REPAIR);
            Boolean remapPending = flag("remapped_rows.pending", GpuData.MEMORY_REPAIR);
            Boolean failure = flag("remapped_rows.failure", GpuData.MEMORY_REPAIR);
            if (sbe != null || dbe != null || pending != null) {
                provide(GpuData.MEMORY_REPAIR);
                gpu.retiredSbe = sbe;
                gpu.retiredDbe = dbe;
                gpu.retiredPending = pending;
            }
            if (corr != null && unc != null && remapPending != null && failure != null) {
                provide(GpuData.MEMORY_REPAIR);
                gpu.remappedRows = new RemappedRows(corr, unc, remapPending, failure);
            }
        }

        private void pcie() {
            Long gen = first("pcie.link.gen.gpucurrent", "pcie.link.gen.current");
            Long width = number("pcie.link.width.current", GpuData.PCIE);
            if (gen != null || width != null) {
                provide(GpuData.PCIE);
                gpu.pcieGen = gen;
                gpu.pcieMaxGen = first("pcie.link.gen.gpumax", "pcie.link.gen.max");
                gpu.pcieWidth = width;
                gpu.pcieMaxWidth = number("pcie.link.width.max", GpuData.PCIE);
            }
            String p = text("pstate");
            if (p != null && p.matches("P([0-9]|1[0-5])")) {
                gpu.performanceState = Long.parseLong(p.substring(1));
            }
            gpu.gpuUtilization = number("utilization.gpu", GpuData.PCIE);
        }

        private void provide(GpuData kind) {
            provides.add(kind);
            gpu.holds.add(kind);
        }

        String text(String field) {
            String v = cells.get(field);
            return v == null || SmiQValues.absent(v) || SmiQValues.error(v) != null ? null : v;
        }

        private Long first(String... names) {
            for (String n : names) {
                if (cells.containsKey(n)) {
                    GpuData kind = n.startsWith("power") || n.startsWith("enforced") ? GpuData.POWER
                            : n.startsWith("pcie") ? GpuData.PCIE : GpuData.MEMORY_REPAIR;
                    Double d = decimal(n, kind);
                    if (d != null) {
                        return n.startsWith("power") || n.startsWith("enforced") ? Math.round(d * 1000) : Math.round(d);
                    }
                }
            }
            return null;
        }

        private Long number(String field, GpuData kind) {
            Double d = decimal(field, kind);
            return d == null ? null : Math.round(d);
        }

        private Double decimal(String field, GpuData kind) {
            String v = readable(field, kind);
            if (v == null) {
                return null;
            }
            Matcher m = NUMBER.matcher(v);
            if (!m.matches()) {
                gap(kind, "expected a number for '" + field + "', found '" + SmiQValues.shorten(v) + "'");
                return null;
            }
            return Double.parseDouble(m.group(1));
        }

        private Boolean flag(String field, GpuData kind) {
            String v = readable(field, kind);
            if (v == null) {
                return null;
            }
            Boolean b = SmiQValues.flag(v);
            if (b == null) {
                gap(kind, "expected Yes/No, Enabled/Disabled or Active/Not Active for '" + field + "', found '" + SmiQValues.shorten(v) + "'");
            }
            return b;
        }

        /** The cell, null when absent; an NVML error in it is a gap. */
        private String readable(String field, GpuData kind) {
            String v = cells.get(field);
            if (v == null || SmiQValues.absent(v)) {
                return null;
            }
            if (SmiQValues.error(v) != null) {
                gap(kind, "'" + field + "' reads '" + v + "': nvidia-smi could not read it");
                return null;
            }
            return v;
        }

        private void gap(GpuData kind, String what) {
            gaps.add(new GpuCapture.Gap(gpu == null ? null : gpu.index, gpu == null ? null : gpu.pciBusId, EnumSet.of(kind),
                    (gpu == null ? "" : gpu.label() + ": ") + "line " + line + ": " + what));
        }
    }
}
