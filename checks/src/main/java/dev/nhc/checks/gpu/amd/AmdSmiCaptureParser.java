package dev.nhc.checks.gpu.amd;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.jr.ob.JSON;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.gpu.capture.CaptureParseException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads what users attach to tickets about AMD GPUs into the GPU read model:
 * <ul>
 * <li>{@code amd-smi static --json}, {@code amd-smi metric --json}, {@code amd-smi list --json} and
 *     {@code amd-smi bad-pages --json}, whole or with a subset of their options, as a list of GPUs
 *     (ROCm 6) or under {@code "gpu_data"} (ROCm 6.4 and later) ({@link AmdSmiJsonReader});</li>
 * <li>{@code amd-smi bad-pages} as text (what its {@code --help} suggests and most tickets hold) ({@link AmdSmiBadPages});</li>
 * <li>{@code rocm-smi -a --json} (and any {@code rocm-smi --show… --json}), where sites still run it ({@link RocmSmiJsonReader}).</li>
 * </ul>
 * amd-smi's other text output is refused with the advice to capture it with {@code --json}: its
 * layout changes between releases, its JSON does not. A value judged must be a number (or amd-smi's
 * {@code {"value": …, "unit": …}} with the unit expected) or {@code N/A}, which is absent as AMD
 * SMI's NOT_SUPPORTED is; anything else is a problem naming the GPU and the key, never a pass.
 */
public final class AmdSmiCaptureParser {
    private static final int MAX_PROBLEMS = 5;
    private static final Pattern JSON_LIST = Pattern.compile("\\[\\s*[{\\]]");

    private final List<String> problems = new ArrayList<>();
    private String driverVersion;

    private AmdSmiCaptureParser() {
    }

    /** Reads the capture through {@link CaptureFile} (bounded, text only), then parses it. */
    public static AmdSmiCapture parse(Path file) throws IOException, CaptureParseException {
        return parse(file.toString(), CaptureFile.readText(file));
    }

    /** @param source names the capture in messages (its file name) */
    public static AmdSmiCapture parse(String source, String text) throws CaptureParseException {
        AmdSmiCaptureParser p = new AmdSmiCaptureParser();
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
        return AmdSmiBadPages.looksLikeText(t) ? "amd-smi bad-pages" : null;
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
                if (map.keySet().stream().anyMatch(k -> RocmSmiJsonReader.CARD.matcher(String.valueOf(k)).matches())) {
                    RocmSmiJsonReader rocm = new RocmSmiJsonReader(this::problem);
                    List<CapturedAmdGpu> gpus = rocm.read(map);
                    driverVersion = rocm.driverVersion();
                    return gpus;
                }
                problem("a JSON object with neither amd-smi's \"gpu_data\" nor rocm-smi's \"card0\"…: keys "
                        + AmdSmiValues.shorten(map.keySet().toString()));
            }
            return List.of();
        }
        return new AmdSmiBadPages(this::problem).text(text);
    }

    private List<CapturedAmdGpu> amdSmiJson(List<?> entries) {
        AmdSmiJsonReader amd = new AmdSmiJsonReader(this::problem);
        List<CapturedAmdGpu> gpus = amd.read(entries);
        driverVersion = amd.driverVersion();
        return gpus;
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
}
