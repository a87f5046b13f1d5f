package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * lbnl_hw.nhc: CPU counts become {@code cpu}; RAM, swap and their sum, with LBNL's fudge factor, and
 * free memory as LBNL counts it (MemFree + Buffers + Cached) become {@code memory};
 * {@code check_hw_ib RATE [DEV:PORT]} becomes {@code ib.ports} and {@code check_hw_eth DEV}
 * {@code net.interface}. Myrinet and mcelog are carried over.
 */
final class HwTranslator implements FunctionTranslator {
    static final String FAMILY = "hw";

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.startsWith("check_hw_")) {
            return null;
        }
        if (ctx.tainted(FAMILY)) {
            return new CarriedOver("an earlier line changes where LBNL NHC reads hardware data (" + String.join(", ", ctx.taintedVariables(FAMILY)) + ")");
        }
        return switch (function) {
            case "check_hw_cpuinfo" -> cpuinfo(args);
            case "check_hw_physmem" -> size("check_hw_physmem", "memory", "total", "RAM", args);
            case "check_hw_swap" -> size("check_hw_swap", "swap", "swap_total", "swap", args);
            case "check_hw_mem" -> size("check_hw_mem", "memory-and-swap", "total_with_swap", "RAM + swap", args);
            case "check_hw_swap_free" -> free("swap-free", "swap_free", args);
            case "check_hw_physmem_free" -> free("memory-free", "free_with_cache", args);
            case "check_hw_mem_free" -> free("memory-and-swap-free", "free_with_cache_and_swap", args);
            case "check_hw_ib" -> ib(args);
            case "check_hw_eth" -> eth(args);
            case "check_hw_gm" -> new CarriedOver("nhc has no Myrinet probe");
            case "check_hw_mcelog" -> mcelog(args, ctx);
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome cpuinfo(List<String> args) {
        String[] fields = {"sockets", "cores", "threads"};
        NhcCheck c = new NhcCheck("cpus", "cpu").noWarnings();
        boolean any = false;
        for (int i = 0; i < Math.min(3, args.size()); i++) {
            String a = args.get(i);
            if (a.isEmpty()) {
                continue;
            }
            if (!a.matches("[0-9]{1,9}")) {
                return new CarriedOver("'" + a + "' is not a whole number");
            }
            c.failWhen(fields[i], "!= " + Long.parseLong(a));
            any = true;
        }
        if (args.size() > 3) {
            return new CarriedOver("more arguments than check_hw_cpuinfo reads");
        }
        if (!any) {
            return Translated.note("gives no counts: LBNL NHC checks nothing");
        }
        c.differs("LBNL NHC counts from /proc/cpuinfo (sockets × the last CPU's 'cpu cores' and 'siblings'); nhc counts the online CPUs "
                + "in /sys: the same on a healthy node, but nhc also fails when a CPU of another than the last socket is offline");
        return Translated.checks(c);
    }

    /**
     * A size between a minimum and a maximum, with a fudge factor: LBNL fails when total + fudge &lt;
     * min or total - fudge &gt; max (in kB, a percentage fudge taken of the total and rounded down),
     * which is total &lt; the least passing total or total &gt; the greatest one.
     */
    private static Outcome size(String function, String name, String field, String what, List<String> args) {
        if (args.size() > 3) {
            return new CarriedOver("more arguments than " + function + " reads");
        }
        String minText = args.isEmpty() ? "" : args.get(0);
        String maxText = args.size() > 1 ? args.get(1) : "";
        String fudgeText = args.size() > 2 ? args.get(2) : "";
        if (maxText.isEmpty()) {
            return new Refused("without a maximum LBNL NHC compares the " + what + " size with 0 and fails on every node; give both sizes");
        }
        Long min = minText.isEmpty() ? Long.valueOf(0) : LbnlSizes.kib(minText);
        Long max = LbnlSizes.kib(maxText);
        if (min == null || max == null) {
            return new CarriedOver("'" + (min == null ? minText : maxText) + "' is not a whole size");
        }
        LongUnaryOperator fudge;
        if (fudgeText.isEmpty()) {
            fudge = t -> 0;
        } else if (LbnlSizes.percent(fudgeText) != null) {
            long pct = LbnlSizes.percent(fudgeText);
            fudge = t -> pct * t / 100;
        } else if (LbnlSizes.kib(fudgeText) != null) {
            long f = LbnlSizes.kib(fudgeText);
            fudge = t -> f;
        } else {
            return new CarriedOver("'" + fudgeText + "' is not a whole percentage or size");
        }
        long limit = 1L << 50;
        // least total that passes the minimum: total + fudge(total) >= min (non-decreasing in total)
        long lo = 0;
        long hi = limit;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (mid + fudge.applyAsLong(mid) >= min) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        long leastPassing = lo;
        // greatest total that passes the maximum: total - fudge(total) <= max
        lo = 0;
        hi = limit;
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (mid - fudge.applyAsLong(mid) <= max) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        long greatestPassing = lo;
        NhcCheck c = new NhcCheck(name, "memory").noWarnings();
        if (leastPassing > 0) {
            c.failWhen(field, "< " + LbnlSizes.quantity(leastPassing));
        }
        if (greatestPassing < limit) {
            c.failWhen(field, "> " + LbnlSizes.quantity(greatestPassing));
        }
        if (!fudgeText.isEmpty()) {
            c.note("the limits include LBNL's fudge factor " + fudgeText + " of " + minText + " .. " + maxText);
        }
        return Translated.checks(c);
    }

    private static Outcome free(String name, String field, List<String> args) {
        String a = args.isEmpty() ? "" : args.get(0);
        if (a.isEmpty()) {
            return Translated.note("gives no minimum: LBNL NHC compares with 0 and never fails it");
        }
        Long kib = LbnlSizes.kib(a);
        if (kib == null) {
            return new CarriedOver("'" + a + "' is not a whole size");
        }
        return Translated.checks(new NhcCheck(name, "memory").noWarnings().failWhen(field, "< " + LbnlSizes.quantity(kib)));
    }

    /**
     * LBNL NHC 1.4.3 passes check_hw_ib when one port, of any link layer, is ACTIVE (and LinkUp) at
     * exactly RATE Gb/s and, with DEV, is that DEVICE:PORT (compared as text); and fails whenever the
     * user-space MAD interface is missing. Other ports, down or slower, are none of its business.
     */
    private static Outcome ib(List<String> args) {
        String rate = args.isEmpty() ? "" : args.get(0);
        String dev = args.size() > 1 ? args.get(1) : "";
        if (args.size() > 2) {
            return new CarriedOver("more arguments than check_hw_ib reads");
        }
        if (!rate.isEmpty() && !rate.matches("[0-9]{1,6}")) {
            return new CarriedOver("the rate '" + rate + "' is not whole Gb/s, which nhc's ib.ports compares");
        }
        if (!dev.isEmpty() && !dev.matches("[A-Za-z0-9_.-]+:[0-9]+")) {
            return dev.indexOf(':') < 0
                    ? new Refused("LBNL NHC 1.4.3 compares '" + dev + "' with DEVICE:PORT (mlx5_0:1), so no port matches and the line fails on every node; "
                    + "write " + dev + ":1")
                    : new CarriedOver("'" + dev + "' is not a plain DEVICE:PORT");
        }
        String devName = dev.endsWith(":1") ? dev.substring(0, dev.length() - 2) : dev.replace(':', '-');
        NhcCheck c = new NhcCheck("ib" + (dev.isEmpty() ? "" : "-" + devName) + (rate.isEmpty() ? "" : "-" + rate), "ib.ports")
                .with("link_layer", "any");
        if (!rate.isEmpty()) {
            c.with("rate", Long.parseLong(rate)).with("exact_rate", true);
        }
        if (!dev.isEmpty()) {
            c.with("devices", List.of(dev));
        }
        c.noWarnings().failWhen("ports_up", "< 1").failWhen("umad_loaded", "false");
        c.note("passes when one " + (dev.isEmpty() ? "port" : "port " + dev) + " is ACTIVE" + (rate.isEmpty() ? "" : " at exactly " + rate + " Gb/s")
                + ", as LBNL NHC's check_hw_ib; other ports do not matter");
        return Translated.checks(c);
    }

    /**
     * check_hw_mcelog: mcelog --client's per-DIMM counts; more than MCELOG_MAX_CORRECTED_RATE (9) corrected or
     * MCELOG_MAX_UNCORRECTED_RATE (0) uncorrected errors "in 24h" fail. No output, no daemon ("Connection
     * refused") or no such lines pass, and so does a missing mcelog, whose error is just other output.
     */
    private static Outcome mcelog(List<String> args, ImportContext ctx) {
        if (!args.isEmpty() || ctx.assigned.stream().anyMatch(v -> v.startsWith("MCELOG"))) {
            return new CarriedOver("check_hw_mcelog with other arguments or MCELOG variables set");
        }
        // corrected: 10 or more; uncorrected: 1 or more ("uncorrected" also ends in "corrected": not after "un")
        String over = "(?<!un)corrected memory errors:\\n[^\\n]*\\n[ \\t]*[1-9][0-9]+ in 24h|uncorrected memory errors:\\n[^\\n]*\\n[ \\t]*[1-9][0-9]* in 24h";
        NhcCheck c = new NhcCheck("mcelog", "command").with("command", List.of("mcelog", "--client")).with("output", over)
                .noWarnings().failWhen("output_matches", "true").failWhen("timed_out", "true").onUnknown("ignore");
        c.note("LBNL NHC's check_hw_mcelog: more than 9 corrected or any uncorrected memory error in 24 h on a DIMM fails; "
                + "no mcelog daemon passes");
        return Translated.checks(c);
    }

    /** check_hw_eth DEV: an interface whose name matches DEV (a glob) is in /proc/net/dev, i.e. /sys/class/net. */
    private static Outcome eth(List<String> args) {
        String dev = args.isEmpty() ? "" : args.get(0);
        if (dev.isEmpty()) {
            return new CarriedOver("check_hw_eth without a device matches any interface name, which nhc's net.interface does not take");
        }
        if (!dev.matches("[A-Za-z0-9_.:@*?\\[\\]!-]+")) {
            return new CarriedOver("'" + dev + "' is not an interface name or glob");
        }
        return Translated.checks(new NhcCheck("net-" + FunctionTranslator.slug(dev), "net.interface").with("name", dev)
                .note("present is all LBNL NHC's check_hw_eth asks"));
    }
}
