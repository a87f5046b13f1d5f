package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.EccCounter;
import dev.nhc.checks.gpu.GpuDevice.EccError;
import dev.nhc.checks.gpu.PciBusId;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the summary table plain {@code nvidia-smi} prints, the capture most pasted into tickets.
 * Per GPU, two rows:
 *
 * <pre>
 * |   0  NVIDIA H100 80GB HBM3          On  |   00000000:19:00.0 Off |                    0 |
 * | N/A   27C    P0             72W /  700W |       1MiB /  81559MiB |      0%      Default |
 * </pre>
 *
 * It holds the index, name (unless nvidia-smi shortened it with "..."), persistence mode, bus
 * id, the volatile uncorrectable ECC count, temperature, performance state, power draw and cap,
 * and utilisation: the probes judge those and skip what the table does not show. {@code ERR!} in
 * a column nhc judges is a value nvidia-smi could not read: a {@link GpuCapture.Gap}.
 */
final class NvidiaSmiTableParser {
    /** "Driver Version: 550.90.07", or from driver 610 "KMD Version: 610.57.04". */
    private static final Pattern DRIVER = Pattern.compile("(?:Driver|KMD) Version:\\s*([0-9.]+)");
    private static final Pattern FIRST = Pattern.compile(
            "^\\|\\s*(\\d+)\\s+(.*?)\\s+(On|Off|TCC|WDDM)\\s*\\|\\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7])\\s+\\S+\\s*\\|\\s*(.*?)\\s*\\|");
    private static final Pattern SECOND = Pattern.compile(
            "^\\|\\s*(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(?:\\S+\\s+)?(\\S+)\\s*/\\s*(\\S+)\\s*\\|[^|]*\\|\\s*(\\S+)");
    private static final Pattern NUMBER = Pattern.compile("^(\\d+(?:\\.\\d+)?)(C|W|%)?$");

    private NvidiaSmiTableParser() {
    }

    static boolean looksLike(String[] lines) {
        for (String l : lines) {
            if (l.contains("NVIDIA-SMI ") && (l.contains("Driver Version") || l.contains("KMD Version"))) {
                return true;
            }
        }
        return false;
    }

    static GpuCapture parse(String source, String[] lines) {
        String driver = null;
        List<CapturedGpu> gpus = new ArrayList<>();
        List<GpuCapture.Gap> gaps = new ArrayList<>();
        Set<GpuData> provides = EnumSet.noneOf(GpuData.class);
        CapturedGpu pending = null;
        int slot = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int lineNo = i + 1;
            NvidiaSmiErrors.Line error = NvidiaSmiErrors.recognise(line);
            if (error != null && error.meaning() == NvidiaSmiErrors.Meaning.LOST_GPU) {
                gpus.add(CapturedGpu.lost(-1 - slot++, error));
                continue;
            }
            Matcher d = DRIVER.matcher(line);
            if (driver == null && d.find()) {
                driver = d.group(1);
            }
            Matcher first = FIRST.matcher(line);
            if (first.find()) {
                CapturedGpu g = new CapturedGpu(Integer.parseInt(first.group(1)));
                g.pciBusId = PciBusId.normalize(first.group(4));
                String name = first.group(2).strip();
                g.name = name.endsWith("...") ? null : name;
                g.persistenceMode = switch (first.group(3)) {
                    case "On" -> Boolean.TRUE;
                    case "Off" -> Boolean.FALSE;
                    default -> null;
                };
                provide(g, provides, GpuData.INVENTORY);
                String ecc = first.group(5);
                if (SmiQValues.error(ecc) != null) {
                    gaps.add(gap(g, GpuData.ECC, lineNo, "its 'Volatile Uncorr. ECC' reads '" + ecc + "'"));
                } else if (!SmiQValues.absent(ecc) && !ecc.equals("Off") && !ecc.equals("On")) {
                    Long v = number(ecc);
                    if (v == null) {
                        gaps.add(gap(g, GpuData.ECC, lineNo, "expected a count for 'Volatile Uncorr. ECC', found '" + ecc + "'"));
                    } else {
                        provide(g, provides, GpuData.ECC);
                        g.ecc.put(CapturedGpu.eccKey(EccCounter.VOLATILE, EccError.UNCORRECTED, null), v);
                    }
                }
                gpus.add(g);
                pending = g;
                continue;
            }
            Matcher second = SECOND.matcher(line);
            if (pending != null && second.find()) {
                second(pending, second, lineNo, provides, gaps);
                pending = null;
            }
        }
        if (gpus.isEmpty()) {
            gaps.add(new GpuCapture.Gap(null, null, GpuCapture.ALL, "no GPU rows in nvidia-smi's table (such as '|   0  NVIDIA H100 ...  On  |"
                    + " 00000000:19:00.0 Off |   0 |')"));
        } else if (gpus.stream().allMatch(g -> g.lost != null)) {
            provides.addAll(GpuCapture.ALL);
        }
        return new GpuCapture(source, driver, gpus, provides, gaps, null, null);
    }

    /** The second row: fan, temperature, performance state, power draw / cap, memory, utilisation. */
    private static void second(CapturedGpu g, Matcher m, int lineNo, Set<GpuData> provides, List<GpuCapture.Gap> gaps) {
        String temp = m.group(2);
        if (SmiQValues.error(temp) != null) {
            gaps.add(gap(g, GpuData.THERMAL, lineNo, "its temperature reads '" + temp + "'"));
        } else if (!SmiQValues.absent(temp)) {
            g.temperature = number(temp);
            if (g.temperature != null) {
                provide(g, provides, GpuData.THERMAL);
            }
        }
        String perf = m.group(3);
        if (perf.matches("P([0-9]|1[0-5])")) {
            g.performanceState = Long.parseLong(perf.substring(1));
        }
        String draw = m.group(4);
        String cap = m.group(5);
        if (SmiQValues.error(draw) != null || SmiQValues.error(cap) != null) {
            gaps.add(gap(g, GpuData.POWER, lineNo, "its power reads '" + draw + " / " + cap + "'"));
        } else {
            Long w = number(draw);
            Long c = number(cap);
            if (w != null || c != null) {
                provide(g, provides, GpuData.POWER);
                g.powerMilliwatts = w == null ? null : w * 1000;
                g.powerLimitMilliwatts = c == null ? null : c * 1000;
            }
        }
        Long util = number(m.group(6));
        if (util != null) {
            g.gpuUtilization = util;
        }
    }

    private static Long number(String v) {
        Matcher n = NUMBER.matcher(v.strip());
        return n.matches() ? Math.round(Double.parseDouble(n.group(1))) : null;
    }

    private static void provide(CapturedGpu g, Set<GpuData> provides, GpuData kind) {
        provides.add(kind);
        g.holds.add(kind);
    }

    private static GpuCapture.Gap gap(CapturedGpu g, GpuData kind, int line, String what) {
        return new GpuCapture.Gap(g.index, g.pciBusId, EnumSet.of(kind), g.label() + ": line " + line + ": " + what);
    }
}
