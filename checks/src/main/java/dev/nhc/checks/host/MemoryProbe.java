package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code memory}: /proc/meminfo in bytes, and optionally how far MemTotal is from the physical
 * memory an admin expects, so that a node which lost a DIMM (and booted with less) fails instead of
 * running jobs out of memory.
 */
public final class MemoryProbe implements Probe {
    static final String MEMINFO = "/proc/meminfo";

    static final ParamSpec<Long> TOTAL = ParamSpec.bytes("total", "expected physical memory, e.g. 512GiB")
            .check(b -> b <= 0 ? "must be more than 0 bytes" : null);
    static final ParamSpec<Double> TOLERANCE = ParamSpec.percent("tolerance", "how far MemTotal may be from 'total'")
            .defaultValue(5.0)
            .check(p -> p >= 100 ? "must be less than 100% (MemTotal cannot be 100% below 'total')" : null);

    private static final String MISMATCH = "memory {total}, expected {expected_total} ± {with.tolerance}%";

    private static final ProbeSpec SPEC = ProbeSpec.builder("memory",
                    "Memory and swap from /proc/meminfo. With 'total', checks the installed memory: less than "
                            + "total - tolerance fails (a DIMM lost or disabled at boot), more than total + tolerance "
                            + "warns (the config does not match this node). Note that MemTotal is a few percent below "
                            + "the installed size: the kernel and firmware keep some.")
            .tags(Tags.HOST)
            .entities(Entity.Kind.NODE, "node")
            .param(TOTAL)
            .param(TOLERANCE)
            .field("total", Unit.BYTES, "MemTotal: usable physical memory")
            .field("available", Unit.BYTES, "MemAvailable: memory a new job can get without swapping (kernel estimate)")
            .field("free", Unit.BYTES, "MemFree: memory not used at all (page cache counts as used)")
            .field("swap_total", Unit.BYTES, "SwapTotal")
            .field("swap_free", Unit.BYTES, "SwapFree")
            .field("free_with_cache", Unit.BYTES, "MemFree + Buffers + Cached: what LBNL NHC calls free RAM")
            .field("total_with_swap", Unit.BYTES, "MemTotal + SwapTotal: LBNL NHC's system memory")
            .field("free_with_cache_and_swap", Unit.BYTES, "free_with_cache + SwapFree: LBNL NHC's free system memory")
            .field("hugepages_total", Unit.BYTES, "HugePages_Total × Hugepagesize: the default-size huge page pool")
            .field("hugepages_free", Unit.BYTES, "HugePages_Free × Hugepagesize")
            .field("expected_total", Unit.BYTES, "the memory 'total' expects (only with 'total')")
            .field("total_deviation_percent", Unit.PERCENT, "how far MemTotal is from 'total', in percent of it: "
                    + "negative when memory is missing (only with 'total')")
            .optional("expected_total", "total_deviation_percent")
            .rule(DefaultRule.fail(Map.of("total_deviation_percent", "< -{with.tolerance}"), MISMATCH).remedy(Remedy.HARDWARE))
            .rule(DefaultRule.warn(Map.of("total_deviation_percent", "> {with.tolerance}"), MISMATCH))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Map<String, Long> info = parse(SysFiles.read(ctx, MEMINFO));
        Long total = info.get("MemTotal");
        if (total == null) {
            throw new IOException(ctx.sys(MEMINFO) + ": no MemTotal line");
        }
        Long pageSize = info.get("Hugepagesize");
        Long expected = TOTAL.get(ctx.params());
        return ProbeResult.of(Observation.of(Entity.NODE)
                .put("total", total)
                .put("available", info.get("MemAvailable"))
                .put("free", info.get("MemFree"))
                .put("swap_total", info.get("SwapTotal"))
                .put("swap_free", info.get("SwapFree"))
                .put("free_with_cache", sum(info, "MemFree", "Buffers", "Cached"))
                .put("total_with_swap", sum(info, "MemTotal", "SwapTotal"))
                .put("free_with_cache_and_swap", sum(info, "MemFree", "Buffers", "Cached", "SwapFree"))
                .put("hugepages_total", pages(info.get("HugePages_Total"), pageSize))
                .put("hugepages_free", pages(info.get("HugePages_Free"), pageSize))
                .put("expected_total", expected)
                .put("total_deviation_percent", expected == null ? null : deviationPercent(total, expected))
                .build());
    }

    /**
     * Unrounded: a rule compares it with the tolerance, and rounding would move that bound (by 26 MiB
     * of 512 GiB at two decimals).
     */
    static double deviationPercent(long total, long expected) {
        return 100.0 * (total - expected) / expected;
    }

    /** "Key:   value kB" lines to bytes; lines without a unit (HugePages_*) are plain counts. */
    static Map<String, Long> parse(String text) {
        Map<String, Long> out = new HashMap<>();
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String[] rest = line.substring(colon + 1).trim().split("\\s+");
            try {
                long v = Long.parseLong(rest[0]);
                if (rest.length > 1 && rest[1].equalsIgnoreCase("kB")) {
                    v *= 1024;
                }
                out.put(line.substring(0, colon).trim(), v);
            } catch (NumberFormatException e) {
                // A line this kernel formats differently; the fields that need it stay absent.
            }
        }
        return out;
    }

    /** The sum of these lines, as LBNL NHC adds them: a line the kernel does not print counts as 0 (as in its bash). */
    private static long sum(Map<String, Long> info, String... keys) {
        long s = 0;
        for (String k : keys) {
            s += info.getOrDefault(k, 0L);
        }
        return s;
    }

    private static Long pages(Long count, Long pageSize) {
        return count == null || pageSize == null ? null : count * pageSize;
    }
}
