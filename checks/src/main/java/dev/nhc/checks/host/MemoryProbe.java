package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Quantity;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code memory}: /proc/meminfo in bytes, and optionally the physical memory an admin expects, so
 * that a node which lost a DIMM (and booted with less) fails instead of running jobs out of memory.
 */
public final class MemoryProbe implements Probe {
    static final String MEMINFO = "/proc/meminfo";

    private static final ProbeSpec SPEC = ProbeSpec.builder("memory",
                    "Memory and swap from /proc/meminfo. With 'total', checks the installed memory: less than "
                            + "total - tolerance fails (a DIMM lost or disabled at boot), more than total + tolerance "
                            + "warns (the config does not match this node). Note that MemTotal is a few percent below "
                            + "the installed size: the kernel and firmware keep some.")
            .entities("node")
            .param(ParamSpec.optional("total", ParamType.BYTES, null, "expected physical memory, e.g. 512GiB"))
            .param(ParamSpec.optional("tolerance", ParamType.PERCENT, 5.0, "how far MemTotal may be from 'total'"))
            .field("total", Unit.BYTES, "MemTotal: usable physical memory")
            .field("available", Unit.BYTES, "MemAvailable: memory a new job can get without swapping (kernel estimate)")
            .field("free", Unit.BYTES, "MemFree: memory not used at all (page cache counts as used)")
            .field("swap_total", Unit.BYTES, "SwapTotal")
            .field("swap_free", Unit.BYTES, "SwapFree")
            .field("hugepages_total", Unit.BYTES, "HugePages_Total × Hugepagesize: the default-size huge page pool")
            .field("hugepages_free", Unit.BYTES, "HugePages_Free × Hugepagesize")
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
        Observation o = Observation.of("node")
                .put("total", total)
                .put("available", info.get("MemAvailable"))
                .put("free", info.get("MemFree"))
                .put("swap_total", info.get("SwapTotal"))
                .put("swap_free", info.get("SwapFree"))
                .put("hugepages_total", pages(info.get("HugePages_Total"), pageSize))
                .put("hugepages_free", pages(info.get("HugePages_Free"), pageSize))
                .build();
        ProbeResult.Builder result = ProbeResult.builder().observe(o);
        Long expected = ctx.params().integer("total");
        if (expected != null) {
            double tolerance = ctx.params().number("tolerance");
            double low = expected * (1 - tolerance / 100);
            double high = expected * (1 + tolerance / 100);
            String what = "memory " + bytes(total) + ", expected " + bytes(expected) + " ± " + Quantity.formatNumber(tolerance) + "%";
            if (total < low) {
                result.finding(Finding.of("node", Severity.FAIL, what).withRemedy(Remedy.HARDWARE));
            } else if (total > high) {
                result.finding(Finding.of("node", Severity.WARN, what));
            }
        }
        return result.build();
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

    private static Long pages(Long count, Long pageSize) {
        return count == null || pageSize == null ? null : count * pageSize;
    }

    /** 503.2 GiB, 512 GiB: one decimal where it says something. */
    static String bytes(long n) {
        return Quantity.formatBytes(n).replace(".0 ", " ");
    }
}
