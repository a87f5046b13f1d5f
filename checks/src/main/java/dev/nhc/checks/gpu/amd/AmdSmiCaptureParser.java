package dev.nhc.checks.gpu.amd;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.jr.ob.JSON;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.BadPages;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.amd.AmdSmiViolations.Violation;
import dev.nhc.checks.gpu.capture.CaptureParseException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what users attach to tickets about AMD GPUs into the GPU read model:
 * <ul>
 * <li>{@code amd-smi static --json}, {@code amd-smi metric --json}, {@code amd-smi list --json} and
 *     {@code amd-smi bad-pages --json}, whole or with a subset of their options, as a list of GPUs
 *     (ROCm 6) or under {@code "gpu_data"} (ROCm 6.4 and later);</li>
 * <li>{@code amd-smi bad-pages} as text (what its {@code --help} suggests and most tickets hold);</li>
 * <li>{@code rocm-smi -a --json} (and any {@code rocm-smi --show… --json}), where sites still run it.</li>
 * </ul>
 * amd-smi's other text output is refused with the advice to capture it with {@code --json}: its
 * layout changes between releases, its JSON does not. A value judged must be a number (or amd-smi's
 * {@code {"value": …, "unit": …}} with the unit expected) or {@code N/A}, which is absent as AMD
 * SMI's NOT_SUPPORTED is; anything else is a problem naming the GPU and the key, never a pass.
 */
public final class AmdSmiCaptureParser {
    private static final int MAX_PROBLEMS = 5;
    private static final String NOT_AVAILABLE = "N/A";
    private static final String NO_BAD_PAGES = "No bad pages found.";
    private static final Pattern TEXT_GPU = Pattern.compile("^GPU: (\\d+)\\s*$");
    private static final Pattern TEXT_SECTION = Pattern.compile("^ {4}(RETIRED|PENDING|UN_RES):\\s*(.*?)\\s*$");
    private static final Pattern CARD = Pattern.compile("card(\\d+)");
    private static final Pattern ROCM_PCIE_LEVEL = Pattern.compile("\\(?([0-9.]+)\\s*GT/s\\s*x(\\d+)");
    private static final Pattern GEN = Pattern.compile("(?i)gen\\s*(\\d)");
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(?:\\.[0-9]+)?");
    private static final Pattern JSON_LIST = Pattern.compile("\\[\\s*[{\\]]");

    private final String source;
    private final List<String> problems = new ArrayList<>();
    private String driverVersion;

    private AmdSmiCaptureParser(String source) {
        this.source = source;
    }

    /** Reads the capture through {@link CaptureFile} (bounded, text only), then parses it. */
    public static AmdSmiCapture parse(Path file) throws IOException, CaptureParseException {
        return parse(file.toString(), CaptureFile.readText(file));
    }

    /** @param source names the capture in messages (its file name) */
    public static AmdSmiCapture parse(String source, String text) throws CaptureParseException {
        AmdSmiCaptureParser p = new AmdSmiCaptureParser(source);
        List<CapturedAmdGpu> gpus = p.parseAny(text.replace("\r\n", "\n"));
        if (p.problems.isEmpty() && gpus.isEmpty()) {
            p.problem("it shows no GPU");
        }
        if (!p.problems.isEmpty()) {
            throw new CaptureParseException(source, "amd-smi", p.problems);
        }
        return new AmdSmiCapture(source, p.driverVersion, gpus);
    }

    /** What kind of AMD capture {@code text} is, or null when it is none nhc reads ("amd-smi --json", "rocm-smi --json", "amd-smi bad-pages"). */
    public static String kindOf(String text) {
        String t = text.stripLeading();
        String head = t.substring(0, Math.min(t.length(), 200));
        // a list of GPU objects, not a dmesg line's "[ 12.345678]"
        if (JSON_LIST.matcher(head).lookingAt() || t.startsWith("{") && head.contains("\"gpu_data\"")) {
            return "amd-smi --json";
        }
        if (t.startsWith("{") && Pattern.compile("\"card\\d+\"").matcher(head).find()) {
            return "rocm-smi --json";
        }
        return t.lines().anyMatch(l -> TEXT_SECTION.matcher(l).matches()) && t.lines().anyMatch(l -> TEXT_GPU.matcher(l).matches())
                ? "amd-smi bad-pages" : null;
    }

    private void problem(String p) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(p);
        }
    }

    private List<CapturedAmdGpu> parseAny(String text) {
        String t = text.stripLeading();
        if (t.startsWith("[") || t.startsWith("{")) {
            Object doc = json(text, text.length() - t.length());
            if (doc instanceof List<?> list) {
                return amdSmiJson(list);
            }
            if (doc instanceof Map<?, ?> map) {
                if (map.get("gpu_data") instanceof List<?> list) {
                    return amdSmiJson(list);
                }
                if (map.keySet().stream().anyMatch(k -> CARD.matcher(String.valueOf(k)).matches())) {
                    return rocmSmiJson(map);
                }
                problem("a JSON object with neither amd-smi's \"gpu_data\" nor rocm-smi's \"card0\"…: keys " + shorten(map.keySet().toString()));
            }
            return List.of();
        }
        return badPagesText(text);
    }

    private Object json(String text, int start) {
        int lineOffset = (int) text.substring(0, start).chars().filter(c -> c == '\n').count();
        try {
            return JSON.std.anyFrom(text.substring(start));
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String where = loc == null ? "" : "line " + (loc.getLineNr() + lineOffset) + ", column " + loc.getColumnNr() + ": ";
            problem(where + "not JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""));
        } catch (IOException e) {
            problem("not JSON: " + e.getMessage());
        }
        return null;
    }

    // ------------------------------------------------------------------ amd-smi --json

    private List<CapturedAmdGpu> amdSmiJson(List<?> entries) {
        Map<Integer, CapturedAmdGpu> byIndex = new LinkedHashMap<>();
        int i = 0;
        for (Object e : entries) {
            i++;
            if (!(e instanceof Map<?, ?> m) || !(m.get("gpu") instanceof Number n)) {
                problem("entry " + i + " of the list is not a GPU (no \"gpu\" index): " + shorten(String.valueOf(e)));
                continue;
            }
            int index = n.intValue();
            if (byIndex.containsKey(index)) {
                problem("GPU " + index + " appears twice");
                continue;
            }
            CapturedAmdGpu g = new CapturedAmdGpu(index);
            byIndex.put(index, g);
            gpu(g, m);
        }
        return new ArrayList<>(byIndex.values());
    }

    private void gpu(CapturedAmdGpu g, Map<?, ?> m) {
        String at = "GPU " + g.index;
        // amd-smi list --json: the GPU's address and UUID at its top level
        if (m.get("bdf") instanceof String bdf) {
            g.pciBusId = pci(bdf);
            g.holds.add(GpuData.INVENTORY);
        }
        if (m.get("uuid") instanceof String uuid && !uuid.equals(NOT_AVAILABLE)) {
            g.uuid = uuid;
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> asic = section(m, "asic", at);
        if (asic != null) {
            g.name = text(asic.get("market_name"));
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> bus = section(m, "bus", at);
        if (bus != null) {
            if (bus.get("bdf") instanceof String bdf) {
                g.pciBusId = pci(bdf);
            }
            g.pcieMaxWidth = positive(number(bus.get("max_pcie_width"), at, "bus.max_pcie_width", null));
            Long version = bus.get("pcie_interface_version") instanceof String v ? gen(v) : null;
            g.pcieMaxGen = version != null ? version : speedToGen(bus.get("max_pcie_speed"), at, "bus.max_pcie_speed");
            g.holds.add(GpuData.INVENTORY);
        }
        Map<?, ?> vbios = section(m, "vbios", at);
        if (vbios != null) {
            g.firmwareVersion = text(vbios.containsKey("version") ? vbios.get("version") : vbios.get("vbios_version"));
        }
        Map<?, ?> driver = section(m, "driver", at);
        if (driver != null && driverVersion == null) {
            driverVersion = text(driver.get("version"));
        }
        Map<?, ?> ras = section(m, "ras", at);
        if (ras != null && ras.get("ecc_block_state") instanceof Map<?, ?> states && states.get("UMC") instanceof String umc) {
            g.eccEnabled = !umc.equals("DISABLED") && !umc.equals("NONE");
        }
        Map<?, ?> limit = section(m, "limit", at);
        if (limit != null) {
            putIfKnown(g.thresholds, TemperatureThreshold.SLOWDOWN, celsius(limit.get("slowdown_hotspot_temperature"), at, "limit.slowdown_hotspot_temperature"));
            putIfKnown(g.thresholds, TemperatureThreshold.SHUTDOWN, celsius(limit.get("shutdown_hotspot_temperature"), at, "limit.shutdown_hotspot_temperature"));
            putIfKnown(g.thresholds, TemperatureThreshold.MEM_MAX, celsius(limit.get("slowdown_vram_temperature"), at, "limit.slowdown_vram_temperature"));
            g.powerLimitMilliwatts = milliwatts(limit.get("socket_power"), at, "limit.socket_power");
        }
        metric(g, m, at);
        badPagesJson(g, m, at);
    }

    private void metric(CapturedAmdGpu g, Map<?, ?> m, String at) {
        Map<?, ?> usage = section(m, "usage", at);
        if (usage != null) {
            g.gpuUtilization = number(usage.get("gfx_activity"), at, "usage.gfx_activity", "%");
        }
        Map<?, ?> temperature = section(m, "temperature", at);
        if (temperature != null) {
            g.temperature = positive(celsius(temperature.get("hotspot"), at, "temperature.hotspot"));
            g.memoryTemperature = positive(celsius(temperature.get("mem"), at, "temperature.mem"));
            g.holds.add(GpuData.THERMAL);
        }
        Map<?, ?> power = section(m, "power", at);
        if (power != null) {
            g.powerMilliwatts = milliwatts(power.get("socket_power"), at, "power.socket_power");
            g.holds.add(GpuData.POWER);
        }
        Map<?, ?> throttle = section(m, "throttle", at);
        if (throttle != null) {
            Map<Violation, Boolean> reported = new EnumMap<>(Violation.class);
            for (Violation v : Violation.values()) {
                Object s = throttle.get(v.statusKey());
                if ("ACTIVE".equals(s) || Boolean.TRUE.equals(s)) {
                    reported.put(v, true);
                } else if ("NOT ACTIVE".equals(s) || Boolean.FALSE.equals(s)) {
                    reported.put(v, false);
                } else if (s != null && !NOT_AVAILABLE.equals(s)) {
                    problem(at + ": throttle." + v.statusKey() + " is " + shorten(String.valueOf(s)) + ", expected ACTIVE, NOT ACTIVE or N/A");
                }
            }
            g.throttle = AmdSmiViolations.of(reported);
            g.holds.add(GpuData.THERMAL);
        }
        Map<?, ?> pcie = section(m, "pcie", at);
        if (pcie != null) {
            g.pcieWidth = positive(number(pcie.get("width"), at, "pcie.width", null));
            g.pcieGen = speedToGen(pcie.get("speed"), at, "pcie.speed");
            g.pcieReplays = number(pcie.get("replay_count"), at, "pcie.replay_count", null);
            g.pcieRecoveries = number(pcie.get("l0_to_recovery_count"), at, "pcie.l0_to_recovery_count", null);
            g.holds.add(GpuData.PCIE);
        }
        Map<?, ?> ecc = section(m, "ecc", at);
        if (ecc != null) {
            putIfKnown(g.eccTotal, EccError.CORRECTED, number(ecc.get("total_correctable_count"), at, "ecc.total_correctable_count", null));
            putIfKnown(g.eccTotal, EccError.UNCORRECTED, number(ecc.get("total_uncorrectable_count"), at, "ecc.total_uncorrectable_count", null));
            putIfKnown(g.eccTotal, EccError.DEFERRED, number(ecc.get("total_deferred_count"), at, "ecc.total_deferred_count", null));
            g.holds.add(GpuData.ECC);
        }
        Map<?, ?> blocks = section(m, "ecc_blocks", at);
        if (blocks != null) {
            blocks.forEach((name, counts) -> eccBlock(g, String.valueOf(name), counts, at));
            g.holds.add(GpuData.ECC);
        }
        if (m.get("xgmi_err") instanceof String status && !status.equals(NOT_AVAILABLE)) {
            g.linkErrorStatus = switch (status.replace("AMDSMI_XGMI_STATUS_", "")) {
                case "NO_ERRORS" -> "no errors";
                case "ERROR" -> "error";
                case "MULTIPLE_ERRORS" -> "multiple errors";
                default -> {
                    problem(at + ": xgmi_err is " + shorten(status) + ", expected AMDSMI_XGMI_STATUS_NO_ERRORS, _ERROR or _MULTIPLE_ERRORS");
                    yield null;
                }
            };
            g.holds.add(GpuData.NVLINK);
        }
    }

    private void eccBlock(CapturedAmdGpu g, String name, Object counts, String at) {
        EccBlock block = null;
        for (EccBlock b : EccBlock.of(GpuVendor.AMD)) {
            if (name.equals(b.nameFor(GpuVendor.AMD))) {
                block = b;
            }
        }
        if (block == null || !(counts instanceof Map<?, ?> c)) {
            return;     // a block nhc does not judge (a newer one), or N/A
        }
        String key = "ecc_blocks." + name;
        Map<EccError, Long> m = g.eccByBlock.computeIfAbsent(block, b -> new EnumMap<>(EccError.class));
        putIfKnown(m, EccError.CORRECTED, number(c.get("correctable_count"), at, key + ".correctable_count", null));
        putIfKnown(m, EccError.UNCORRECTED, number(c.get("uncorrectable_count"), at, key + ".uncorrectable_count", null));
        putIfKnown(m, EccError.DEFERRED, number(c.get("deferred_count"), at, key + ".deferred_count", null));
    }

    /** {@code amd-smi bad-pages --json}: each status a message, one page (an object) or a list of pages. */
    private void badPagesJson(CapturedAmdGpu g, Map<?, ?> m, String at) {
        if (!m.containsKey("retired") && !m.containsKey("pending") && !m.containsKey("un_res")) {
            return;
        }
        Long retired = pages(m.get("retired"), at, "retired");
        Long pending = pages(m.get("pending"), at, "pending");
        Long unreservable = pages(m.get("un_res"), at, "un_res");
        badPages(g, retired, pending, unreservable);
    }

    private Long pages(Object v, String at, String key) {
        if (v == null || NOT_AVAILABLE.equals(v)) {
            return null;
        }
        if (NO_BAD_PAGES.equals(v)) {
            return 0L;
        }
        if (v instanceof Map<?, ?> page && page.containsKey("page_address")) {
            return 1L;
        }
        if (v instanceof List<?> list && list.stream().allMatch(p -> p instanceof Map<?, ?> page && page.containsKey("page_address"))) {
            return (long) list.size();
        }
        problem(at + ": " + key + " is " + shorten(String.valueOf(v)) + ", expected \"" + NO_BAD_PAGES + "\", N/A or pages with a page_address");
        return null;
    }

    private static void badPages(CapturedAmdGpu g, Long retired, Long pending, Long unreservable) {
        if (retired == null && pending == null && unreservable == null) {
            return;     // the tool could not read the table: nothing to judge
        }
        g.badPages = new BadPages(retired == null ? 0 : retired, pending == null ? 0 : pending, unreservable == null ? 0 : unreservable);
        g.holds.add(GpuData.MEMORY_REPAIR);
    }

    // ------------------------------------------------------------------ amd-smi bad-pages (text)

    private List<CapturedAmdGpu> badPagesText(String text) {
        Map<Integer, CapturedAmdGpu> byIndex = new LinkedHashMap<>();
        Map<Integer, Map<String, Long>> counts = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        CapturedAmdGpu gpu = null;
        String section = null;
        boolean sawGpu = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher mg = TEXT_GPU.matcher(line);
            if (mg.matches()) {
                sawGpu = true;
                int index = Integer.parseInt(mg.group(1));
                if (byIndex.containsKey(index)) {
                    problem("line " + (i + 1) + ": GPU " + index + " appears twice");
                }
                gpu = byIndex.computeIfAbsent(index, CapturedAmdGpu::new);
                counts.put(index, new LinkedHashMap<>());
                section = null;
                continue;
            }
            Matcher ms = TEXT_SECTION.matcher(line);
            if (gpu != null && ms.matches()) {
                section = ms.group(1);
                String value = ms.group(2);
                Long n = value.isEmpty() ? Long.valueOf(0) : value.equals(NO_BAD_PAGES) ? Long.valueOf(0) : value.equals(NOT_AVAILABLE) ? null : -1L;
                if (n != null && n < 0) {
                    problem("line " + (i + 1) + ": " + section + " is '" + shorten(value) + "', expected '" + NO_BAD_PAGES + "', N/A or its pages below");
                    n = null;
                }
                counts.get(gpu.index).put(section, n);
                continue;
            }
            String trimmed = line.strip();
            if (gpu != null && section != null && line.startsWith("        ") && trimmed.startsWith("PAGE_ADDRESS:")) {
                counts.get(gpu.index).merge(section, 1L, (a, b) -> a == null ? null : a + b);
            } else if (!trimmed.isEmpty() && gpu != null && !line.startsWith("        ")) {
                problem("line " + (i + 1) + ": '" + shorten(trimmed) + "' is not amd-smi bad-pages output; nhc reads amd-smi's other"
                        + " output as JSON only: capture it with --json (amd-smi static --json, amd-smi metric --json)");
                return List.of();
            }
        }
        if (!sawGpu) {
            problem("line 1: neither amd-smi output (--json, or bad-pages) nor rocm-smi --json output: '"
                    + shorten(lines.length == 0 ? "" : lines[0].strip()) + "'");
            return List.of();
        }
        counts.forEach((index, c) -> {
            if (c.isEmpty()) {
                problem("GPU " + index + " shows none of RETIRED, PENDING, UN_RES: not amd-smi bad-pages output; capture the rest with --json");
            }
            badPages(byIndex.get(index), c.get("RETIRED"), c.get("PENDING"), c.get("UN_RES"));
        });
        return new ArrayList<>(byIndex.values());
    }

    // ------------------------------------------------------------------ rocm-smi --json

    private List<CapturedAmdGpu> rocmSmiJson(Map<?, ?> doc) {
        List<CapturedAmdGpu> out = new ArrayList<>();
        if (doc.get("system") instanceof Map<?, ?> system) {
            driverVersion = text(system.get("Driver version"));
        }
        doc.forEach((k, v) -> {
            Matcher mc = CARD.matcher(String.valueOf(k));
            if (!mc.matches()) {
                return;
            }
            if (!(v instanceof Map<?, ?> card)) {
                problem(k + " is " + shorten(String.valueOf(v)) + ", expected an object");
                return;
            }
            CapturedAmdGpu g = new CapturedAmdGpu(Integer.parseInt(mc.group(1)));
            String at = String.valueOf(k);
            Map<String, Object> c = new LinkedHashMap<>();
            card.forEach((key, value) -> c.put(String.valueOf(key).toLowerCase(Locale.ROOT), value));
            if (c.get("pci bus") instanceof String bus) {
                g.pciBusId = pci(bus);
            }
            g.name = text(c.containsKey("card series") ? c.get("card series") : c.get("card model"));
            g.uuid = text(c.get("unique id"));
            g.firmwareVersion = text(c.get("vbios version"));
            g.holds.add(GpuData.INVENTORY);
            Long junction = celsius(c.get("temperature (sensor junction) (c)"), at, "Temperature (Sensor junction) (C)");
            Long memory = celsius(c.get("temperature (sensor memory) (c)"), at, "Temperature (Sensor memory) (C)");
            if (junction != null || memory != null) {
                g.temperature = positive(junction);
                g.memoryTemperature = positive(memory);
                g.holds.add(GpuData.THERMAL);
            }
            if (c.get("pcie clock level") instanceof String level) {
                Matcher ml = ROCM_PCIE_LEVEL.matcher(level);
                if (ml.find()) {
                    g.pcieGen = gtToGen(Double.parseDouble(ml.group(1)));
                    g.pcieWidth = Long.parseLong(ml.group(2));
                }
            }
            g.pcieReplays = number(c.get("pcie replay count"), at, "PCIe Replay Count", null);
            if (g.pcieGen != null || g.pcieReplays != null) {
                g.holds.add(GpuData.PCIE);
            }
            Object power = c.containsKey("current socket graphics package power (w)") ? c.get("current socket graphics package power (w)")
                    : c.get("average graphics package power (w)");
            g.powerMilliwatts = milliwatts(power, at, "Graphics Package Power (W)");
            g.powerLimitMilliwatts = milliwatts(c.get("max graphics package power (w)"), at, "Max Graphics Package Power (W)");
            if (g.powerMilliwatts != null) {
                g.holds.add(GpuData.POWER);
            }
            out.add(g);
        });
        return out;
    }

    // ------------------------------------------------------------------ values

    /** A section of a GPU's entry (an object), or null when absent or N/A. */
    private Map<?, ?> section(Map<?, ?> m, String key, String at) {
        Object v = m.get(key);
        if (v == null || NOT_AVAILABLE.equals(v)) {
            return null;
        }
        if (v instanceof Map<?, ?> s) {
            return s;
        }
        problem(at + ": " + key + " is " + shorten(String.valueOf(v)) + ", expected an object or N/A");
        return null;
    }

    /**
     * A number: a JSON number, a numeric string (rocm-smi's "53.0"), or amd-smi's {"value": …, "unit": …};
     * null for N/A or absent. {@code unit}, when given, is the one unit accepted.
     */
    private Long number(Object v, String at, String key, String unit) {
        if (v instanceof Map<?, ?> vu && vu.containsKey("value")) {
            Object u = vu.get("unit");
            if (unit != null && u != null && !unit.equals(u) && !NOT_AVAILABLE.equals(vu.get("value"))) {
                problem(at + ": " + key + " is in " + u + ", expected " + unit);
                return null;
            }
            v = vu.get("value");
        }
        if (v == null || NOT_AVAILABLE.equals(v)) {
            return null;
        }
        if (v instanceof Number n) {
            return Math.round(n.doubleValue());
        }
        if (v instanceof String s && NUMBER.matcher(s.strip()).matches()) {
            return Math.round(Double.parseDouble(s.strip()));
        }
        problem(at + ": " + key + " is " + shorten(String.valueOf(v)) + ", expected a number or N/A");
        return null;
    }

    private Long celsius(Object v, String at, String key) {
        return number(v, at, key, "C");
    }

    /** Watts as milliwatts (amd-smi shows W; the library's microwatts are converted by amd-smi). */
    private Long milliwatts(Object v, String at, String key) {
        if (v instanceof Map<?, ?> vu && "mW".equals(vu.get("unit"))) {
            return number(vu.get("value"), at, key, null);
        }
        Long w = number(v, at, key, "W");
        return w == null ? null : w * 1000;
    }

    /** A link speed ({"value": 32, "unit": "GT/s"}, or "32 GT/s") as a PCIe generation. */
    private Long speedToGen(Object v, String at, String key) {
        if (v instanceof String s && s.endsWith("GT/s")) {
            v = s.replace("GT/s", "").strip();
        }
        if (v instanceof Map<?, ?> vu && vu.get("value") instanceof Number n && "GT/s".equals(vu.get("unit"))) {
            return gtToGen(n.doubleValue());
        }
        Long gts = number(v, at, key, "GT/s");
        return gts == null ? null : gtToGen(gts);
    }

    private static Long gtToGen(double gigaTransfers) {
        return AmdSmiStructs.generation(Math.round(gigaTransfers * 1000));
    }

    private static Long gen(String version) {
        Matcher m = GEN.matcher(version);
        return m.find() ? Long.valueOf(m.group(1)) : null;
    }

    private static String pci(String bdf) {
        return NOT_AVAILABLE.equals(bdf) ? null : PciBusId.normalize(bdf);
    }

    private static String text(Object v) {
        return v == null || NOT_AVAILABLE.equals(v) || String.valueOf(v).isBlank() ? null : String.valueOf(v).strip();
    }

    private static Long positive(Long v) {
        return v == null || v <= 0 ? null : v;
    }

    private static <K> void putIfKnown(Map<K, Long> m, K key, Long value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
