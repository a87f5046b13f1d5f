package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.checks.kernel.ReadStats;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code gpu.xid}: NVIDIA XID and SXID errors from the new kernel log lines, classified by
 * {@link XidTable}. Fatal ones latch: they are kept in the check's state with the boot id and
 * stay FAIL in every later run until the node reboots (new boot id) or an admin runs
 * {@code nhc clear CHECK} (which calls {@link #clear}: the latches go, the log cursor stays so
 * that the old lines are not judged again).
 */
public final class GpuXidProbe implements Probe {
    static final String LATCHED = "xid.latched";
    static final String BOOT_ID = "xid.boot_id";
    private static final int TEXT_MAX = 160;

    private static final ProbeSpec SPEC = KernelLogSpec.withReader(ProbeSpec.builder("gpu.xid",
                    "NVIDIA XID/SXID errors in the kernel log since the last run; fatal ones stay failing until reboot or nhc clear")
            .entities("one per GPU (by index when the GPU inventory maps its PCI address, else \"GPU at PCI 0000:3b:00.0\"), "
                    + "one per NVSwitch, and \"kernel log\" for the reading itself")
            .param(ParamSpec.optional("log", ParamType.STRING, "kmsg", "where to read: kmsg (/dev/kmsg), journal, or a file path such as /var/log/kern.log"))
            .param(ParamSpec.optional("fail", ParamType.INTEGER_LIST, null, "XIDs that fail the node (added to the defaults 48 64 74 79 95 119 120 140; application XIDs 13 43 45 at most warn)"))
            .param(ParamSpec.optional("warn", ParamType.INTEGER_LIST, null, "XIDs that only warn (overrides a default fail)"))
            .param(ParamSpec.optional("ignore", ParamType.INTEGER_LIST, null, "XIDs to ignore"))
            .field("xid_new", Unit.COUNT, "XID lines for this GPU since the last run")
            .field("xid_latched", Unit.COUNT, "fatal XIDs remembered for this GPU since boot")
            .field("last_xid", Unit.COUNT, "the last XID seen for this GPU this run")
            .field("application_xids", Unit.COUNT, "application XIDs (13, 43, 45) seen this run; not a node fault")
            ).build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** {@code nhc clear}: forget the latched XIDs but keep the log cursor, so that a repaired GPU's old lines are not judged again. */
    @Override
    public void clear(ProbeState state) {
        KernelLogSpec.clearKeepingCursor(state);
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Params p = ctx.params();
        XidTable table = new XidTable(p.integers("fail"), p.integers("warn"), p.integers("ignore"));
        Optional<PciToGpu> gpus = ctx.service(PciToGpu.class);
        ProbeState state = ctx.state();

        String boot = KernelLogReader.bootId(ctx);
        String storedBoot = state.getString(BOOT_ID);
        Map<String, Map<String, Object>> latched = loadLatches(state);
        if (boot != null && storedBoot != null && !boot.equals(storedBoot)) {
            latched.clear(); // rebooted: the GPUs were reset with it
        }

        Map<String, Agg> fresh = new LinkedHashMap<>();
        long[] application = {0};
        ReadStats stats = null;
        String readError = null;
        KernelLogReader reader = new KernelLogReader(ctx, p.string("log"))
                .maxLines(p.has("max_lines") ? p.integer("max_lines") : KernelLogReader.DEFAULT_MAX_LINES)
                .sinceBoot(!Boolean.FALSE.equals(p.bool("since_boot")))
                .journalctl(p.string("journalctl"));
        try {
            stats = reader.read(line -> XidEvent.parse(line).ifPresent(e -> {
                if (e.kind() == XidEvent.Kind.XID && XidTable.APPLICATION.contains(e.code())) {
                    application[0]++;
                }
                fresh.computeIfAbsent(key(e), k -> new Agg()).add(e);
            }));
        } catch (IOException e) {
            readError = e.getMessage();
        }

        for (Map.Entry<String, Agg> en : fresh.entrySet()) {
            XidEvent e = en.getValue().representative();
            Severity s = table.severity(e);
            if (e.code() == XidEvent.RECOVERY_ACTION && e.kind() == XidEvent.Kind.XID && s != Severity.FAIL) {
                latched.remove(en.getKey()); // the driver says the GPU needs no (or less) recovery now
            } else if (s == Severity.FAIL) {
                latched.merge(en.getKey(), toLatch(en.getValue()), GpuXidProbe::mergeLatch);
            }
        }

        // One finding per GPU: its latched fatal XIDs and this run's warnings together.
        Map<String, List<Item>> byEntity = new LinkedHashMap<>();
        Map<String, Observation.Builder> obs = new LinkedHashMap<>();
        for (Map<String, Object> l : new ArrayList<>(latched.values())) {
            XidEvent e = fromLatch(l);
            if (table.severity(e) != Severity.FAIL) {
                latched.remove(key(e)); // the config no longer calls it fatal
                continue;
            }
            String entity = entity(e, gpus);
            byEntity.computeIfAbsent(entity, k -> new ArrayList<>()).add(new Item(e, Severity.FAIL, num(l.get("count")), str(l.get("first"))));
        }
        for (Agg a : fresh.values()) {
            XidEvent e = a.representative();
            String entity = entity(e, gpus);
            Severity s = table.severity(e);
            if (s == Severity.WARN) {
                byEntity.computeIfAbsent(entity, k -> new ArrayList<>()).add(new Item(e, s, a.count, a.first.when()));
            }
        }
        Map<String, Long> newPerEntity = new LinkedHashMap<>();
        Map<String, Integer> lastPerEntity = new LinkedHashMap<>();
        for (Agg a : fresh.values()) {
            String entity = entity(a.last, gpus);
            newPerEntity.merge(entity, a.count, Long::sum);
            lastPerEntity.put(entity, a.last.code());
        }
        for (Map<String, Object> l : latched.values()) {
            obs.computeIfAbsent(entity(fromLatch(l), gpus), Observation::of);
        }
        newPerEntity.keySet().forEach(en -> obs.computeIfAbsent(en, Observation::of));
        obs.forEach((entity, b) -> {
            b.put("xid_new", newPerEntity.getOrDefault(entity, 0L));
            b.put("xid_latched", latched.values().stream().filter(l -> entity(fromLatch(l), gpus).equals(entity)).count());
            b.put("last_xid", lastPerEntity.get(entity));
        });

        ProbeResult.Builder out = ProbeResult.builder();
        obs.values().forEach(b -> out.observe(b.build()));
        Observation.Builder log = Observation.of("kernel log").put("application_xids", application[0]);
        if (stats != null) {
            KernelLogSpec.putStats(log, stats);
            KernelLogSpec.warnings(stats).forEach(out::finding);
        }
        out.observe(log.build());
        byEntity.forEach((entity, items) -> out.finding(finding(ctx.checkName(), entity, items)));
        if (readError != null) {
            out.finding(Finding.of("kernel log", Severity.UNKNOWN, readError));
        } else if (stats.skippedLines() > 0) {
            out.finding(Finding.of("kernel log", Severity.WARN, stats.skippedLines() + " new kernel log lines in " + stats.source()
                    + " were not examined for XIDs (more than max_lines = " + p.integer("max_lines") + " new lines this run)"));
        }

        List<Object> save = new ArrayList<>(latched.values());
        state.put(LATCHED, save.isEmpty() ? null : save);
        if (boot != null) {
            state.put(BOOT_ID, boot);
        }
        return out.build();
    }

    private static Finding finding(String check, String entity, List<Item> items) {
        items.sort(Comparator.comparing((Item i) -> i.severity).reversed());
        Severity worst = items.get(0).severity;
        Remedy remedy = Remedy.NONE;
        SlurmState slurm = null;
        StringBuilder msg = new StringBuilder();
        for (Item i : items) {
            if (i.severity == worst) {
                Remedy r = XidTable.remedy(i.event);
                if (r.ordinal() > remedy.ordinal()) {
                    remedy = r;
                }
                if (XidTable.slurmState(i.event) != null) {
                    slurm = XidTable.slurmState(i.event);
                }
            }
            if (msg.length() > 0) {
                msg.append("; ");
            }
            msg.append(i.event.kind() == XidEvent.Kind.SXID ? "SXID " : "XID ").append(i.event.code())
                    .append(" (").append(XidTable.meaning(i.event)).append(')');
            if (i.count > 1) {
                msg.append(" ×").append(i.count);
            }
            if (i.since != null && !i.since.isEmpty()) {
                msg.append(i.severity == Severity.FAIL ? " since " : " at ").append(i.since);
            }
            if (i.event.text() != null && !i.event.text().isEmpty()) {
                msg.append(": ").append(clip(i.event.text()));
            }
        }
        if (worst == Severity.FAIL) {
            msg.append(" — stays failing until reboot or `nhc clear ").append(check).append('`');
        }
        Map<String, Object> observed = new LinkedHashMap<>();
        observed.put("xids", items.stream().map(i -> (long) i.event.code()).distinct().toList().toString());
        return new Finding(null, entity, worst, msg.toString(), remedy, slurm, observed);
    }

    private static String clip(String s) {
        return s.length() <= TEXT_MAX ? s : s.substring(0, TEXT_MAX) + "…";
    }

    static String entity(XidEvent e, Optional<PciToGpu> gpus) {
        if (e.kind() == XidEvent.Kind.SXID) {
            return "NVSwitch at PCI " + e.pci() + ".0";
        }
        Optional<Integer> idx = gpus.flatMap(m -> m.gpuIndex(e.pci()));
        return idx.map(i -> "GPU " + i).orElse("GPU at PCI " + e.pci() + ".0");
    }

    private static String key(XidEvent e) {
        return e.kind().name().toLowerCase(java.util.Locale.ROOT) + ":" + e.pci() + ":" + e.code();
    }

    private record Item(XidEvent event, Severity severity, long count, String since) {
    }

    /** The XID lines of one kind, GPU and code seen this run. */
    private static final class Agg {
        XidEvent first;
        XidEvent last;
        long count;
        boolean anyFatal;

        void add(XidEvent e) {
            if (first == null) {
                first = e;
            }
            last = e;
            count++;
            anyFatal |= Boolean.TRUE.equals(e.fatal());
        }

        /** The last line, marked fatal if any line was: one fatal NVLink5 line among warnings makes the lot fatal. */
        XidEvent representative() {
            return anyFatal && !Boolean.TRUE.equals(last.fatal())
                    ? new XidEvent(last.kind(), last.pci(), last.code(), Boolean.TRUE, last.recoveryAction(), last.text(), last.when())
                    : last;
        }
    }

    private static Map<String, Object> toLatch(Agg a) {
        XidEvent e = a.representative();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", e.kind().name().toLowerCase(java.util.Locale.ROOT));
        m.put("pci", e.pci());
        m.put("code", (long) e.code());
        if (e.fatal() != null) {
            m.put("fatal", e.fatal());
        }
        if (e.recoveryAction() != null) {
            m.put("action", e.recoveryAction());
        }
        m.put("count", a.count);
        m.put("first", a.first.when());
        m.put("last", e.when());
        m.put("text", clip(e.text()));
        return m;
    }

    private static Map<String, Object> mergeLatch(Map<String, Object> old, Map<String, Object> now) {
        Map<String, Object> m = new LinkedHashMap<>(now);
        m.put("count", num(old.get("count")) + num(now.get("count")));
        m.put("first", old.get("first"));
        if (Boolean.TRUE.equals(old.get("fatal"))) {
            m.put("fatal", Boolean.TRUE);
        }
        return m;
    }

    private static XidEvent fromLatch(Map<String, Object> l) {
        XidEvent.Kind kind = "sxid".equals(l.get("kind")) ? XidEvent.Kind.SXID : XidEvent.Kind.XID;
        Object fatal = l.get("fatal");
        return new XidEvent(kind, str(l.get("pci")), (int) num(l.get("code")), fatal instanceof Boolean b ? b : null,
                str(l.get("action")), str(l.get("text")), str(l.get("last")));
    }

    /** Reads the latches back; entries a hand edit broke are dropped rather than crashing the check. */
    private static Map<String, Map<String, Object>> loadLatches(ProbeState state) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        if (state.get(LATCHED) instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> m && m.get("pci") != null && m.get("code") instanceof Number) {
                    Map<String, Object> l = new LinkedHashMap<>();
                    m.forEach((k, v) -> l.put(String.valueOf(k), v));
                    out.put(key(fromLatch(l)), l);
                }
            }
        }
        return out;
    }

    private static long num(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }
}
