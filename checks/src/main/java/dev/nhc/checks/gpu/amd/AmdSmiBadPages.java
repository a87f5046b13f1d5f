package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice.BadPages;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code amd-smi bad-pages}, as JSON (a GPU's {@code retired}, {@code pending}, {@code un_res}) or as
 * text (what its {@code --help} suggests and most tickets hold): the counts of pages the GPU retired,
 * has pending and could not reserve.
 */
final class AmdSmiBadPages {
    static final String NO_BAD_PAGES = "No bad pages found.";
    private static final Pattern TEXT_GPU = Pattern.compile("^GPU: (\\d+)\\s*$");
    private static final Pattern TEXT_SECTION = Pattern.compile("^ {4}(RETIRED|PENDING|UN_RES):\\s*(.*?)\\s*$");

    private final Consumer<String> problems;

    AmdSmiBadPages(Consumer<String> problems) {
        this.problems = problems;
    }

    /** Whether {@code text} has the lines of amd-smi bad-pages' text: a GPU and one of its sections. */
    static boolean looksLikeText(String text) {
        return text.lines().anyMatch(l -> TEXT_SECTION.matcher(l).matches()) && text.lines().anyMatch(l -> TEXT_GPU.matcher(l).matches());
    }

    /** {@code amd-smi bad-pages --json}: each status a message, one page (an object) or a list of pages. */
    void json(CapturedAmdGpu g, Map<?, ?> m, String at) {
        if (!m.containsKey("retired") && !m.containsKey("pending") && !m.containsKey("un_res")) {
            return;
        }
        Long retired = pages(m.get("retired"), at, "retired");
        Long pending = pages(m.get("pending"), at, "pending");
        Long unreservable = pages(m.get("un_res"), at, "un_res");
        record(g, retired, pending, unreservable);
    }

    private Long pages(Object v, String at, String key) {
        if (v == null || AmdSmiValues.NOT_AVAILABLE.equals(v)) {
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
        problems.accept(at + ": " + key + " is " + AmdSmiValues.shorten(String.valueOf(v)) + ", expected \"" + NO_BAD_PAGES + "\", N/A or pages with a page_address");
        return null;
    }

    private static void record(CapturedAmdGpu g, Long retired, Long pending, Long unreservable) {
        if (retired == null && pending == null && unreservable == null) {
            return;     // the tool could not read the table: nothing to judge
        }
        g.badPages = new BadPages(retired == null ? 0 : retired, pending == null ? 0 : pending, unreservable == null ? 0 : unreservable);
        g.holds.add(GpuData.MEMORY_REPAIR);
    }

    /** {@code amd-smi bad-pages} as text; any other amd-smi text is refused with the advice to capture it with --json. */
    List<CapturedAmdGpu> text(String text) {
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
                    problems.accept("line " + (i + 1) + ": GPU " + index + " appears twice");
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
                Long n = value.isEmpty() ? Long.valueOf(0) : value.equals(NO_BAD_PAGES) ? Long.valueOf(0) : value.equals(AmdSmiValues.NOT_AVAILABLE) ? null : -1L;
                if (n != null && n < 0) {
                    problems.accept("line " + (i + 1) + ": " + section + " is '" + AmdSmiValues.shorten(value) + "', expected '" + NO_BAD_PAGES + "', N/A or its pages below");
                    n = null;
                }
                counts.get(gpu.index).put(section, n);
                continue;
            }
            String trimmed = line.strip();
            if (gpu != null && section != null && line.startsWith("        ") && trimmed.startsWith("PAGE_ADDRESS:")) {
                counts.get(gpu.index).merge(section, 1L, (a, b) -> a == null ? null : a + b);
            } else if (!trimmed.isEmpty() && gpu != null && !line.startsWith("        ")) {
                problems.accept("line " + (i + 1) + ": '" + AmdSmiValues.shorten(trimmed) + "' is not amd-smi bad-pages output; nhc reads amd-smi's other"
                        + " output as JSON only: capture it with --json (amd-smi static --json, amd-smi metric --json)");
                return List.of();
            }
        }
        if (!sawGpu) {
            problems.accept("line 1: neither amd-smi output (--json, or bad-pages) nor rocm-smi --json output: '"
                    + AmdSmiValues.shorten(lines.length == 0 ? "" : lines[0].strip()) + "'");
            return List.of();
        }
        counts.forEach((index, c) -> {
            if (c.isEmpty()) {
                problems.accept("GPU " + index + " shows none of RETIRED, PENDING, UN_RES: not amd-smi bad-pages output; capture the rest with --json");
            }
            record(byIndex.get(index), c.get("RETIRED"), c.get("PENDING"), c.get("UN_RES"));
        });
        return new ArrayList<>(byIndex.values());
    }
}
