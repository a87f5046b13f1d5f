package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.BootLatches;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.checks.kernel.ReadStats;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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

    static final ParamSpec<List<Long>> FAIL = xids("fail",
            "XIDs that are fatal (latched, fail the node) besides those NVIDIA's catalogue and DCGM make fatal (nhc list gpu.xid); "
                    + "application XIDs (NVIDIA: restart the application) at most warn");
    static final ParamSpec<List<Long>> WARN = xids("warn", "XIDs that only warn (overrides a default fatal one)");
    static final ParamSpec<List<Long>> IGNORE = xids("ignore", "XIDs to ignore altogether");
    static final ParamSpec<Duration> APPLICATION_WINDOW = ParamSpec.duration("application_window",
                    "how long an application XID counts against its GPU: the same GPU under application_jobs different Slurm jobs "
                            + "within this window is the GPU's fault (fatal, remedy hardware)").defaultValue(Duration.ofHours(24))
            .check(d -> d.compareTo(Duration.ofMinutes(1)) >= 0 && d.compareTo(Duration.ofDays(30)) <= 0 ? null
                    : "must be between 1m and 30d, not " + d);
    static final ParamSpec<Long> APPLICATION_JOBS = ParamSpec.integer("application_jobs",
                    "how many different Slurm jobs with application XIDs on one GPU within application_window make it the GPU's fault")
            .defaultValue(2L).check(n -> n >= 2 && n <= 100 ? null : "must be 2 to 100, not " + n);

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

    private static final ProbeSpec SPEC = BootLatches.fields(KernelLogSpec.withReader(ProbeSpec.builder("gpu.xid",
                    "NVIDIA XID/SXID errors from the kernel log (and, in the daemon, NVML's XID events); fatal ones stay "
                            + "failing until reboot or nhc clear. XID 79 is also recognised when the driver writes "
                            + "\"GPU has fallen off the bus\" without a number.")
            .tags(Tags.GPU, Tags.KERNEL_LOG)
            .entities(Entity.Kind.GPU, "one per GPU with XIDs (GPU <index> with its PCI id when NVML or a capture maps its "
                    + "address, else \"GPU at PCI 0000:3b:00.0\"), one per NVSwitch with SXIDs, and \"kernel log\" for the reading itself")
            .param(FAIL).param(WARN).param(IGNORE).param(APPLICATION_WINDOW).param(APPLICATION_JOBS))
            .field("xid_latched", Unit.COUNT, "fatal XIDs latched for this GPU since boot (one per XID number)")
            .field("xid_warning", Unit.COUNT, "non-fatal XID lines for this GPU this run (application XIDs only when listed)")
            .field("xid_new", Unit.COUNT, "XID lines and NVML XID events for this GPU this run, of any kind")
            .field("last_xid", Unit.COUNT, "the last XID seen for this GPU this run")
            .field("needs_service", Unit.BOOLEAN, "a latched XID asks for service, not just a drain (Slurm FAIL: 79 fallen off the bus, "
                    + "95 uncontained error, 54 auxiliary power; nhc list gpu.xid)")
            .field("xid_jobs", Unit.COUNT, "different Slurm jobs with application XIDs on this GPU within application_window")
            .field("jobs", Unit.TEXT, "those jobs")
            .field("xids", Unit.TEXT, "the latched and this run's XIDs with their meaning, count, time and text")
            .field("remedy", Unit.TEXT, "NVIDIA's recommended action for the worst of them: reset-gpu, reboot, hardware, restart-app or none")
            .field("application_xids", Unit.COUNT, "kernel log: application XIDs (NVIDIA: restart the application) seen this run; "
                    + "not a node fault by themselves")
            .field("nvml_events", Unit.COUNT, "kernel log: XID events NVML reported to the daemon since the last run")
            .field("source", Unit.TEXT, "kernel log: where it was read (/dev/kmsg, journal, or a file)")
            .reportedFor(Entity.Kind.GPU, PER_DEVICE)
            .reportedFor(Entity.Kind.NVSWITCH, PER_DEVICE)
            .reportedFor(Entity.Kind.LOG, "application_xids", "nvml_events", "source")
            .optional("last_xid", "xid_jobs", "jobs")
            .rule(DefaultRule.fail(Map.of("needs_service", true), "{entity}: {xids}" + STAYS)
                    .remedyFrom("remedy").slurmState(SlurmState.FAIL).latches())
            .rule(DefaultRule.fail(Map.of("xid_latched", "> 0"), "{entity}: {xids}" + STAYS).remedyFrom("remedy").latches())
            .rule(DefaultRule.warn(Map.of("xid_warning", "> 0"), "{entity}: {xids}").remedyFrom("remedy"))
            .rule(DefaultRule.warn(Map.of("skipped_lines", "> 0"), "{skipped_lines} new kernel log {skipped_lines|line|lines} in {source} {skipped_lines|was|were} not "
                    + "examined for XIDs (more than max_lines = {with.max_lines} this run)"))
            .rule(DefaultRule.warn(Map.of("lost_records", "> 0"), "{lost_records} kernel log {lost_records|record was|records were} overwritten before nhc "
                    + "read them; XIDs among them were missed")),
            "kernel log", "latched XIDs", "fatal XIDs of this boot", "the kernel log")
            .reportedFor(Entity.Kind.LOG, "state_lost")
            .optional(BootLatches.OPTIONAL_FIELDS).build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** {@code nhc list gpu.xid}: NVIDIA's XID and SXid catalogues as this probe judges them. */
    @Override
    public List<String> reference() {
        List<String> out = new ArrayList<>(XidCatalogue.get().listing());
        out.add("");
        out.addAll(Nvlink5Decode.get().listing());
        out.add("");
        out.addAll(SxidCatalogue.get().listing());
        return out;
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
        Map<String, Set<Long>> pids = new LinkedHashMap<>();
        ReadStats stats = null;
        String readError = null;
        try {
            stats = KernelLogSpec.reader(ctx).read(new XidLines(e -> {
                String key = XidLatches.key(e);
                fromLog.computeIfAbsent(key, k -> new Seen()).add(e);
                XidJobs.notePid(pids, key, e);
            }, () -> {
                fromLog.clear();
                pids.clear();
            }));
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

        // Application XIDs: whose job they were (all of this run's first), then whether their GPU has now had them under too many jobs.
        Duration window = APPLICATION_WINDOW.get(ctx.params());
        XidJobs jobs = XidJobs.load(state, now, window);
        Map<String, XidJobs.Culprit> culprits = new LinkedHashMap<>();
        long application = 0;
        for (Map.Entry<String, Seen> en : fresh.entrySet()) {
            XidEvent e = en.getValue().representative();
            if (XidTable.applicationOrigin(e)) {
                application += en.getValue().count;
                jobs.attribute(ctx, e, pids.get(en.getKey()), now).ifPresent(c -> culprits.put(en.getKey(), c));
            }
        }
        Set<String> escalated = new HashSet<>();
        for (Map.Entry<String, Seen> en : fresh.entrySet()) {
            Seen s = en.getValue();
            XidEvent e = s.representative();
            XidJobs.Culprit culprit = culprits.get(en.getKey());
            Optional<XidEvent> up = culprit == null || !culprit.inJob() ? Optional.empty()
                    : jobs.escalation(e, APPLICATION_JOBS.get(ctx.params()), window);
            if (up.isPresent()) {
                escalated.add(en.getKey());
                e = up.get();
            }
            XidTable.Impact impact = table.impact(e);
            if (impact == XidTable.Impact.FATAL) {
                latches.latch(e, s.count, s.first.when());
            } else if (e.kind() == XidEvent.Kind.XID && e.code() == XidEvent.RECOVERY_ACTION) {
                latches.remove(e); // the driver says the GPU needs no (or a lesser) recovery now
            }
        }
        latches.retain(e -> table.impact(e) == XidTable.Impact.FATAL); // the config may no longer call it fatal
        jobs.save(state);

        Map<String, XidEntity> entities = new LinkedHashMap<>();
        for (XidLatches.Latch l : latches.all()) {
            entity(entities, names, l.event()).latched(l);
        }
        for (Map.Entry<String, Seen> en : fresh.entrySet()) {
            Seen s = en.getValue();
            XidEvent e = s.representative();
            XidEntity p = entity(entities, names, s.last);
            p.seen(s.count, s.last);
            XidTable.Impact impact = table.impact(e);
            if (!escalated.contains(en.getKey()) && (impact == XidTable.Impact.WARNING || impact == XidTable.Impact.APPLICATION_FAULT)) {
                XidJobs.Culprit culprit = culprits.get(en.getKey());
                p.warning(s.representative(), s.count, s.first.when(), culprit == null ? null : culprit.text(), impact == XidTable.Impact.WARNING);
            }
            if (XidTable.applicationOrigin(e)) {
                p.jobs(jobs.jobs(XidJobs.gpuKey(e)));
            }
        }

        ProbeResult.Builder out = ProbeResult.builder();
        entities.values().forEach(p -> out.observe(p.observation()));
        if (readError != null) {
            out.observe(Observation.unreadable(LOG, readError));
        } else {
            Observation.Builder log = latches.observeLoss(Observation.of(LOG).put("application_xids", application).put("nvml_events", nvmlEvents)
                    .put("source", stats.source()));
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

    private static XidEntity entity(Map<String, XidEntity> entities, GpuNames names, XidEvent e) {
        Entity entity = e.kind() == XidEvent.Kind.SXID ? GpuNames.nvswitch(e.pci()) : names.gpu(e.pci(), e.gpu());
        return entities.computeIfAbsent(entity.kind() + "/" + entity.id(), k -> new XidEntity(entity));
    }

    /** The events of one kind, GPU and XID seen this run. */
    private static final class Seen {
        XidEvent first;
        XidEvent last;
        /** The last event NVIDIA's NVLink5 decode does not say to ignore, and whether the last one is ignored. */
        XidEvent lastKept;
        boolean lastIgnored;
        long count;
        boolean anyFatal;

        void add(XidEvent e) {
            if (first == null) {
                first = e;
            }
            last = e;
            lastIgnored = Nvlink5Decode.ignores(e);
            if (!lastIgnored) {
                lastKept = e;
            }
            count++;
            anyFatal |= Boolean.TRUE.equals(e.fatal());
        }

        /**
         * The last event, marked fatal if any was: one fatal NVLink5 line among warnings makes the lot
         * fatal; and an NVLink5 line the decode ignores does not hide an earlier one it does not.
         */
        XidEvent representative() {
            XidEvent judged = lastIgnored && lastKept != null ? lastKept : last;
            Boolean fatal = anyFatal ? Boolean.TRUE : judged.fatal();
            return judged == last && Objects.equals(fatal, last.fatal()) ? last
                    : new XidEvent(last.kind(), last.pci(), last.gpu(), last.code(), fatal, judged.recoveryAction(), judged.text(), judged.when());
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
            s.lastKept = lastKept;
            s.lastIgnored = lastIgnored;
            s.count = count;
            s.anyFatal = anyFatal;
            return s;
        }
    }
}
