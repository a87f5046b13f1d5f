package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.checks.kernel.ReadStats;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code gpu.xid}: NVIDIA XID and SXID errors from the kernel log lines that are new since the last
 * run, and from NVML's XID events when the daemon watches them ({@link NvmlXidEvents}), classified
 * by {@link XidTable}. Fatal ones latch ({@link XidLatches}): they are observed on every later run
 * until the node reboots (a new boot id) or an admin runs {@code nhc clear CHECK} (which calls
 * {@link #clear}: the latches go, the log cursor stays so that the old lines are not judged again).
 * The probe only observes, per GPU: how many fatal XIDs are latched, how many warnings came this
 * run, which ones, and what NVIDIA's catalogue says to do; its default rules decide.
 */
public final class GpuXidProbe implements Probe {
    /** The "kernel log" reading itself: what was read, and what was lost. */
    static final Entity LOG = KernelLogSpec.LOG_ENTITY;
    private static final int TEXT_MAX = 160;

    static final ParamSpec<List<Long>> FAIL = xids("fail",
            "XIDs that are fatal (latched, fail the node) besides NVIDIA's 48 64 74 79 95 119 120 140; application XIDs 13 43 45 at most warn");
    static final ParamSpec<List<Long>> WARN = xids("warn", "XIDs that only warn (overrides a default fatal one)");
    static final ParamSpec<List<Long>> IGNORE = xids("ignore", "XIDs to ignore altogether");

    private static ParamSpec<List<Long>> xids(String name, String description) {
        return ParamSpec.integers(name, description).check(list -> {
            for (Long x : list) {
                if (x < 1 || x > 65_535) {
                    return "XID numbers are whole numbers from 1 to 65535, not " + x;
                }
            }
            return null;
        });
    }

    private static final String STAYS = " — stays failing until reboot or `nhc clear {check}`";

    /** The fields of a GPU's or an NVSwitch's observation. */
    private static final String[] PER_DEVICE = {"xid_latched", "xid_warning", "xid_new", "last_xid", "needs_service", "xids", "remedy"};

    private static final ProbeSpec SPEC = KernelLogSpec.withReader(ProbeSpec.builder("gpu.xid",
                    "NVIDIA XID/SXID errors from the kernel log (and, in the daemon, NVML's XID events); fatal ones stay "
                            + "failing until reboot or nhc clear. XID 79 is also recognised when the driver writes "
                            + "\"GPU has fallen off the bus\" without a number.")
            .tags(Tags.GPU, Tags.KERNEL_LOG)
            .entities(Entity.Kind.GPU, "one per GPU with XIDs (GPU <index> with its PCI id when NVML or a capture maps its "
                    + "address, else \"GPU at PCI 0000:3b:00.0\"), one per NVSwitch with SXIDs, and \"kernel log\" for the reading itself")
            .param(FAIL).param(WARN).param(IGNORE))
            .field("xid_latched", Unit.COUNT, "fatal XIDs latched for this GPU since boot (one per XID number)")
            .field("xid_warning", Unit.COUNT, "non-fatal XID lines for this GPU this run (application XIDs only when listed)")
            .field("xid_new", Unit.COUNT, "XID lines and NVML XID events for this GPU this run, of any kind")
            .field("last_xid", Unit.COUNT, "the last XID seen for this GPU this run")
            .field("needs_service", Unit.BOOLEAN, "a latched XID asks for service, not just a drain (79 fallen off the bus, 64 row-remap failure)")
            .field("xids", Unit.TEXT, "the latched and this run's XIDs with their meaning, count, time and text")
            .field("remedy", Unit.TEXT, "NVIDIA's recommended action for the worst of them: reset-gpu, reboot, hardware, restart-app or none")
            .field("application_xids", Unit.COUNT, "kernel log: application XIDs (13, 43, 45) seen this run; not a node fault")
            .field("nvml_events", Unit.COUNT, "kernel log: XID events NVML reported to the daemon since the last run")
            .field("source", Unit.TEXT, "kernel log: where it was read (/dev/kmsg, journal, or a file)")
            .field("state_lost", Unit.BOOLEAN, "kernel log: latched XIDs of this boot could not be read back from the check's state")
            .field("state_problem", Unit.TEXT, "kernel log: why they could not")
            .reportedFor(Entity.Kind.GPU, PER_DEVICE)
            .reportedFor(Entity.Kind.NVSWITCH, PER_DEVICE)
            .reportedFor(Entity.Kind.LOG, "application_xids", "nvml_events", "source", "state_lost", "state_problem")
            .optional("last_xid", "state_problem")
            .rule(DefaultRule.fail(Map.of("needs_service", true), "{entity}: {xids}" + STAYS)
                    .remedyFrom("remedy").slurmState(SlurmState.FAIL))
            .rule(DefaultRule.fail(Map.of("xid_latched", "> 0"), "{entity}: {xids}" + STAYS).remedyFrom("remedy"))
            .rule(DefaultRule.warn(Map.of("xid_warning", "> 0"), "{entity}: {xids}").remedyFrom("remedy"))
            .rule(DefaultRule.warn(Map.of("skipped_lines", "> 0"), "{skipped_lines} new kernel log {skipped_lines|line|lines} in {source} {skipped_lines|was|were} not "
                    + "examined for XIDs (more than max_lines = {with.max_lines} this run)"))
            .rule(DefaultRule.warn(Map.of("lost_records", "> 0"), "{lost_records} kernel log {lost_records|record was|records were} overwritten before nhc "
                    + "read them; XIDs among them were missed"))
            .rule(DefaultRule.unknown(Map.of("state_lost", true), "latched XIDs could not be read back from the check's state "
                    + "({state_problem}); fatal XIDs of this boot may be missing until reboot or `nhc clear {check}`"))
            .build();

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
        XidTable table = new XidTable(FAIL.get(ctx.params()), WARN.get(ctx.params()), IGNORE.get(ctx.params()));
        ProbeState state = ctx.state();
        String boot = KernelLogReader.bootId(ctx);
        XidLatches latches = XidLatches.load(state, boot);

        // This run's events, by kind, GPU and XID: lines from the log, then NVML's events.
        Map<String, Seen> fromLog = new LinkedHashMap<>();
        ReadStats stats = null;
        String readError = null;
        try {
            stats = KernelLogSpec.reader(ctx).read(new XidLines(e -> fromLog.computeIfAbsent(XidLatches.key(e), k -> new Seen()).add(e)));
        } catch (IOException e) {
            readError = e.getMessage();
        }
        GpuNames names = new GpuNames(ctx);
        Map<String, Seen> fromNvml = new LinkedHashMap<>();
        long nvmlEvents = 0;
        NvmlXidEvents queue = ctx.service(NvmlXidEvents.class).orElse(null);
        if (queue != null) {
            for (NvmlXidEvents.Event n : queue.drain()) {
                // named by PCI address like the log's lines, so that both sources' XID is one key and one latch
                XidEvent e = names.withPci(XidEvent.fromNvml(n));
                fromNvml.computeIfAbsent(XidLatches.key(e), k -> new Seen()).add(e);
                nvmlEvents++;
            }
        }
        Map<String, Seen> fresh = merge(fromLog, fromNvml);
        // Across runs too: an XID NVML told last run and the log tells now (or the other way round) is one event.
        Instant now = ctx.clock().instant();
        RecentCounts recent = RecentCounts.load(state, now);
        for (Iterator<Map.Entry<String, Seen>> it = fresh.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Seen> en = it.next();
            Seen n = fromNvml.get(en.getKey());
            Seen l = fromLog.get(en.getKey());
            long added = recent.add(en.getKey(), n == null ? 0 : n.count, l == null ? 0 : l.count, now);
            if (added <= 0) {
                it.remove();    // already counted, latched and warned for when the other source told it
            } else if (added < en.getValue().count) {
                en.setValue(en.getValue().counted(added));
            }
        }
        recent.save(state);

        long application = 0;
        for (Seen s : fresh.values()) {
            XidEvent e = s.representative();
            XidTable.Impact impact = table.impact(e);
            if (e.kind() == XidEvent.Kind.XID && XidTable.APPLICATION.contains(e.code())) {
                application += s.count;
            }
            if (impact == XidTable.Impact.FATAL) {
                latches.latch(e, s.count, s.first.when());
            } else if (e.kind() == XidEvent.Kind.XID && e.code() == XidEvent.RECOVERY_ACTION) {
                latches.remove(e); // the driver says the GPU needs no (or a lesser) recovery now
            }
        }
        latches.retain(e -> table.impact(e) == XidTable.Impact.FATAL); // the config may no longer call it fatal

        Map<String, PerEntity> entities = new LinkedHashMap<>();
        for (XidLatches.Latch l : latches.all()) {
            entity(entities, names, l.event()).latched(l);
        }
        for (Seen s : fresh.values()) {
            XidEvent e = s.representative();
            PerEntity p = entity(entities, names, s.last);
            p.seen(s);
            if (table.impact(e) == XidTable.Impact.WARNING) {
                p.warning(s);
            }
        }

        ProbeResult.Builder out = ProbeResult.builder();
        entities.values().forEach(p -> out.observe(p.observation()));
        if (readError != null) {
            out.observe(Observation.unreadable(LOG, readError));
        } else {
            Observation.Builder log = Observation.of(LOG).put("application_xids", application).put("nvml_events", nvmlEvents)
                    .put("source", stats.source()).put("state_lost", latches.lost() != null).put("state_problem", latches.lost());
            KernelLogSpec.putStats(log, stats);
            out.observe(log.build());
        }
        latches.save(state, boot);
        return out.build();
    }

    /**
     * Both sources of one run: NVML reports the XID its kernel log line reports too, so an XID
     * counts as often as the source that saw it more often, not as the sum of both.
     */
    private static Map<String, Seen> merge(Map<String, Seen> log, Map<String, Seen> nvml) {
        Map<String, Seen> out = new LinkedHashMap<>(log);
        nvml.forEach((key, n) -> out.merge(key, n, (l, e) -> (l.count >= e.count ? l.withGpu(e.last.gpu()) : e.withPci(l.last.pci()))
                // an NVLink5 XID (144-150) is fatal only by its log line's text: NVML cannot tell, so either source's word counts
                .fatalIf(l.anyFatal || e.anyFatal)));
        return out;
    }

    private static PerEntity entity(Map<String, PerEntity> entities, GpuNames names, XidEvent e) {
        Entity entity = e.kind() == XidEvent.Kind.SXID ? GpuNames.nvswitch(e.pci()) : names.gpu(e.pci(), e.gpu());
        return entities.computeIfAbsent(entity.kind() + "/" + entity.id(), k -> new PerEntity(entity));
    }

    /** The events of one kind, GPU and XID seen this run. */
    private static final class Seen {
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

        /** The last event, marked fatal if any was: one fatal NVLink5 line among warnings makes the lot fatal. */
        XidEvent representative() {
            return anyFatal && !Boolean.TRUE.equals(last.fatal())
                    ? new XidEvent(last.kind(), last.pci(), last.gpu(), last.code(), Boolean.TRUE, last.recoveryAction(), last.text(), last.when())
                    : last;
        }

        Seen withGpu(Integer gpu) {
            if (gpu == null || last.gpu() != null) {
                return this;
            }
            Seen s = copy();
            s.last = new XidEvent(last.kind(), last.pci(), gpu, last.code(), last.fatal(), last.recoveryAction(), last.text(), last.when());
            return s;
        }

        Seen withPci(String pci) {
            if (pci == null || last.pci() != null) {
                return this;
            }
            Seen s = copy();
            s.last = new XidEvent(last.kind(), pci, last.gpu(), last.code(), last.fatal(), last.recoveryAction(), last.text(), last.when());
            return s;
        }

        Seen counted(long n) {
            Seen s = copy();
            s.count = n;
            return s;
        }

        Seen fatalIf(boolean fatal) {
            if (!fatal || anyFatal) {
                return this;
            }
            Seen s = copy();
            s.anyFatal = true;
            return s;
        }

        private Seen copy() {
            Seen s = new Seen();
            s.first = first;
            s.last = last;
            s.count = count;
            s.anyFatal = anyFatal;
            return s;
        }
    }

    /** What one GPU (or NVSwitch) shows: its latches and this run's events. */
    private static final class PerEntity {
        final Entity entity;
        final List<String> fatal = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        long latched;
        long warningLines;
        long newLines;
        Integer lastXid;
        boolean needsService;
        Remedy worstFatal = Remedy.NONE;
        Remedy worstWarning = Remedy.NONE;

        PerEntity(Entity entity) {
            this.entity = entity;
        }

        void latched(XidLatches.Latch l) {
            latched++;
            needsService |= XidTable.needsService(l.event());
            worstFatal = worse(worstFatal, XidTable.remedy(l.event()));
            fatal.add(describe(l.event(), l.count(), " since ", l.first()));
        }

        void seen(Seen s) {
            newLines += s.count;
            lastXid = s.last.code();
        }

        void warning(Seen s) {
            warningLines += s.count;
            worstWarning = worse(worstWarning, XidTable.remedy(s.representative()));
            warnings.add(describe(s.representative(), s.count, " at ", s.first.when()));
        }

        Observation observation() {
            List<String> all = new ArrayList<>(fatal);
            all.addAll(warnings);
            Remedy remedy = latched > 0 ? worstFatal : worstWarning;
            return Observation.of(entity).put("xid_latched", latched).put("xid_warning", warningLines).put("xid_new", newLines)
                    .put("last_xid", lastXid).put("needs_service", needsService)
                    .put("xids", all.isEmpty() ? null : String.join("; ", all))
                    .put("remedy", all.isEmpty() ? null : remedy.label()).build();
        }

        private static Remedy worse(Remedy a, Remedy b) {
            return b.ordinal() > a.ordinal() ? b : a;
        }

        /** "XID 48 (double-bit ECC error) ×2 since 2026-11-22T04:10:00Z: An uncorrectable double bit error (DBE)". */
        private static String describe(XidEvent e, long count, String sinceOrAt, String when) {
            StringBuilder b = new StringBuilder();
            b.append(e.kind() == XidEvent.Kind.SXID ? "SXID " : "XID ").append(e.code()).append(" (").append(XidTable.meaning(e)).append(')');
            if (count > 1) {
                b.append(" ×").append(count);
            }
            if (when != null && !when.isEmpty()) {
                b.append(sinceOrAt).append(when);
            }
            if (e.text() != null && !e.text().isEmpty()) {
                b.append(": ").append(XidLatches.clip(e.text(), TEXT_MAX));
            }
            return b.toString();
        }
    }
}
