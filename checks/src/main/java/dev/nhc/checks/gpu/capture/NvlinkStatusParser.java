package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi nvlink --status}: per GPU a line {@code GPU 0: NVIDIA H100 80GB HBM3
 * (UUID: GPU-…)}, then {@code Link N: 26.562 GB/s} or {@code Link N: <inactive>} per link, or
 * "all links are inactive". Only the GPUs it shows, by their own index. A line it cannot read
 * leaves that GPU's NVLink state unread (a {@link GpuCapture.Gap}), never a guess.
 */
final class NvlinkStatusParser {
    static final Pattern GPU = Pattern.compile("^GPU (\\d+): (.*?)(?: \\(UUID: ([^)]*)\\))?$");
    private static final Pattern LINK = Pattern.compile("^\\s*Link (\\d+): (.*)$");
    private static final Pattern LINK_SPEED = Pattern.compile("^[0-9.]+ ?GB/s$");

    private NvlinkStatusParser() {
    }

    static GpuCapture parse(String source, String[] lines, int from) {
        Map<Integer, CapturedGpu> byIndex = new LinkedHashMap<>();
        List<GpuCapture.Gap> gaps = new ArrayList<>();
        CapturedGpu current = null;
        for (int i = from; i < lines.length; i++) {
            String line = lines[i].strip();
            int lineNo = i + 1;
            if (line.isEmpty()) {
                continue;
            }
            Matcher gpu = GPU.matcher(line);
            Matcher link = LINK.matcher(line);
            if (gpu.matches()) {
                int index = Integer.parseInt(gpu.group(1));
                current = new CapturedGpu(index);
                current.name = gpu.group(2).strip();
                current.uuid = gpu.group(3);
                current.nvlinks = new ArrayList<>();
                current.holds.add(GpuData.NVLINK);
                if (byIndex.put(index, current) != null) {
                    gaps.add(gap(null, "line " + lineNo + ": GPU " + index + " appears twice: are two captures pasted into one?"));
                }
            } else if (current == null) {
                gaps.add(gap(null, "line " + lineNo + ": expected 'GPU N: <name> (UUID: ...)', found '" + SmiQValues.shorten(line) + "'"));
            } else if (link.matches()) {
                int n = Integer.parseInt(link.group(1));
                String state = link.group(2).strip();
                Boolean up = LINK_SPEED.matcher(state).matches() ? Boolean.TRUE : state.equals("<inactive>") ? Boolean.FALSE : null;
                if (up == null) {
                    gaps.add(gap(current, "line " + lineNo + ": expected a link speed such as '25 GB/s' or '<inactive>', found '"
                            + SmiQValues.shorten(state) + "'"));
                    continue;
                }
                while (current.nvlinks.size() <= n) {
                    current.nvlinks.add(null);
                }
                current.nvlinks.set(n, up);
            } else if (line.toLowerCase(Locale.ROOT).startsWith("nvml: unable to retrieve nvlink information as all links are inactive")) {
                // How many links there are is not shown; one inactive link stands for "all down".
                current.nvlinks.add(Boolean.FALSE);
            } else if (line.equalsIgnoreCase("Device does not have or support Nvlink")) {
                current.nvlinks.clear(); // a GPU without NVLink (L40S, PCIe cards): no link to judge
            } else if (line.equalsIgnoreCase("Nvlink queries are not supported for Devices in MIG mode")) {
                current.nvlinks = null;
                current.holds.remove(GpuData.NVLINK);
                gaps.add(gap(current, "line " + lineNo + ": nvidia-smi cannot read NVLink state while the GPU is in MIG mode ('" + line + "')"));
            } else {
                gaps.add(gap(current, "line " + lineNo + ": expected 'Link N: <speed>' for GPU " + current.index + ", found '"
                        + SmiQValues.shorten(line) + "'"));
            }
        }
        // Only the GPUs it shows: 'nvidia-smi nvlink -s -i 7' is about GPU 7 and says nothing about the others.
        return new GpuCapture(source, null, new ArrayList<>(byIndex.values()), EnumSet.of(GpuData.NVLINK), gaps, null, null);
    }

    private static GpuCapture.Gap gap(CapturedGpu gpu, String text) {
        return gpu == null ? new GpuCapture.Gap(null, null, EnumSet.of(GpuData.NVLINK), text)
                : new GpuCapture.Gap(gpu.index, null, EnumSet.of(GpuData.NVLINK), "GPU " + gpu.index + ": " + text);
    }
}
