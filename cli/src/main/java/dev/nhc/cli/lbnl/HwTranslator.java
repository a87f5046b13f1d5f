package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * lbnl_hw.nhc: CPU counts become {@code cpu}, RAM and swap sizes and free swap become
 * {@code memory}, and {@code check_hw_ib RATE [DEV]} becomes {@code ib.ports} when that probe is
 * switched on. LBNL's "free RAM" is MemFree + Buffers + Cached, which nhc does not observe, so
 * {@code check_hw_physmem_free} and {@code check_hw_mem_free} are carried over, as are the checks
 * nhc has no probe for (Ethernet devices, Myrinet, mcelog).
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
            case "check_hw_physmem" -> size("check_hw_physmem", "total", "RAM", args);
            case "check_hw_swap" -> size("check_hw_swap", "swap_total", "swap", args);
            case "check_hw_swap_free" -> swapFree(args);
            case "check_hw_physmem_free", "check_hw_mem_free" ->
                    new CarriedOver("LBNL NHC counts MemFree + Buffers + Cached as free RAM; nhc's memory probe observes MemFree and MemAvailable, neither of which is that sum");
            case "check_hw_mem" -> new CarriedOver("nhc's memory probe has no RAM + swap total to compare");
            case "check_hw_ib" -> ib(args, ctx);
            case "check_hw_eth" -> new CarriedOver("nhc has no probe for the network devices of /proc/net/dev");
            case "check_hw_gm" -> new CarriedOver("nhc has no Myrinet probe");
            case "check_hw_mcelog" -> new CarriedOver("nhc has no mcelog probe");
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome cpuinfo(List<String> args) {
        String[] fields = {"sockets", "cores", "threads"};
        NhcCheck c = new NhcCheck("hw-cpuinfo", "cpu");
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
        c.note("LBNL NHC counted from /proc/cpuinfo (sockets x 'cpu cores', sockets x 'siblings'); nhc counts online CPUs in /sys, the same on a node whose CPUs are all online");
        return Translated.checks(c);
    }

    /**
     * RAM or swap between a minimum and a maximum, with a fudge factor: LBNL fails when
     * total + fudge &lt; min or total - fudge &gt; max (in kB, a percentage fudge taken of the total and
     * rounded down), which is total &lt; the least passing total or total &gt; the greatest one.
     */
    private static Outcome size(String function, String field, String what, List<String> args) {
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
        NhcCheck c = new NhcCheck(function.substring("check_".length()).replace('_', '-'), "memory");
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

    private static Outcome swapFree(List<String> args) {
        String a = args.isEmpty() ? "" : args.get(0);
        Long kib = LbnlSizes.kib(a);
        if (a.isEmpty()) {
            return Translated.note("gives no minimum: LBNL NHC compares with 0 and never fails it");
        }
        if (kib == null) {
            return new CarriedOver("'" + a + "' is not a whole size");
        }
        return Translated.checks(new NhcCheck("hw-swap-free", "memory").failWhen("swap_free", "< " + LbnlSizes.quantity(kib)));
    }

    private static Outcome ib(List<String> args, ImportContext ctx) {
        String rate = args.isEmpty() ? "" : args.get(0);
        String dev = args.size() > 1 ? args.get(1) : "";
        if (!ctx.ibPortsProbe()) {
            return new CarriedOver("nhc has no InfiniBand port probe in this build");
        }
        if (!rate.matches("[0-9]{1,6}") || args.size() > 2 || !dev.isEmpty() && !FunctionTranslator.plain(dev)) {
            return new CarriedOver("only 'check_hw_ib RATE [DEVICE]' maps to nhc's ib.ports");
        }
        NhcCheck c = new NhcCheck("hw-ib" + (dev.isEmpty() ? "" : "-" + FunctionTranslator.slug(dev)), "ib.ports")
                .with("rate", Long.parseLong(rate));
        if (!dev.isEmpty()) {
            c.with("devices", List.of(dev));
        }
        c.note("LBNL NHC also failed when /sys/class/infiniband_mad/abi_version was missing (user-space OFED mismatch)");
        return Translated.checks(c);
    }
}
