package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.Map;

/**
 * {@code load}: the load averages of /proc/loadavg, and the 1-minute one per online CPU so that one
 * rule fits nodes of different sizes.
 */
public final class LoadProbe implements Probe {
    static final String LOADAVG = "/proc/loadavg";

    private static final ProbeSpec SPEC = ProbeSpec.builder("load",
                    "Load averages from /proc/loadavg. Linux counts tasks waiting on I/O, so a load far above the "
                            + "CPU count often means processes stuck on a hung filesystem rather than busy CPUs. "
                            + "The default only warns: a batch node at full use sits near 1 per CPU, above 4 per CPU "
                            + "it is oversubscribed or stuck; add a fail rule for your site.")
            .tags(Tags.HOST)
            .entities(Entity.Kind.NODE, "node")
            .field("load1", Unit.COUNT, "1-minute load average")
            .field("load5", Unit.COUNT, "5-minute load average")
            .field("load15", Unit.COUNT, "15-minute load average")
            .field("load1_per_cpu", Unit.COUNT, "1-minute load average divided by the online CPUs")
            .field("runnable", Unit.COUNT, "tasks running or runnable right now")
            .field("tasks", Unit.COUNT, "tasks (threads) on the node")
            .rule(DefaultRule.warn(Map.of("load1_per_cpu", "> 4"), "load {load1} is {load1_per_cpu} per CPU"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String text = SysFiles.read(ctx, LOADAVG).trim();
        // "0.52 0.58 0.59 2/1234 5678"
        String[] f = text.split("\\s+");
        double load1;
        double load5;
        double load15;
        try {
            load1 = Double.parseDouble(f[0]);
            load5 = Double.parseDouble(f[1]);
            load15 = Double.parseDouble(f[2]);
        } catch (RuntimeException e) {
            throw new IOException(ctx.sys(LOADAVG) + ": expected three load averages, got '" + text + "'", e);
        }
        Long runnable = null;
        Long tasks = null;
        if (f.length > 3 && f[3].indexOf('/') > 0) {
            try {
                runnable = Long.parseLong(f[3].substring(0, f[3].indexOf('/')));
                tasks = Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
            } catch (NumberFormatException e) {
                // Only the averages matter for the default rule; these stay absent.
            }
        }
        Integer cpus = onlineCpus(ctx);
        return ProbeResult.of(Observation.of(Entity.NODE)
                .put("load1", load1)
                .put("load5", load5)
                .put("load15", load15)
                .put("load1_per_cpu", cpus == null || cpus == 0 ? null : Math.round(100 * load1 / cpus) / 100.0)
                .put("runnable", runnable)
                .put("tasks", tasks)
                .build());
    }

    /** Null when sysfs does not say (then load1_per_cpu is absent rather than guessed from this JVM's view). */
    private static Integer onlineCpus(ProbeContext ctx) throws IOException {
        String online = SysFiles.readIfExists(ctx.sys(CpuProbe.CPU + "/online"));
        if (online == null) {
            return null;
        }
        try {
            return CpuList.parse(online).cardinality();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
