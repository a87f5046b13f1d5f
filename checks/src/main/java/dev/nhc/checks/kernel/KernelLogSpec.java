package dev.nhc.checks.kernel;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.units.Unit;

import java.util.Map;

/** What every probe over new kernel log lines (kernel.log, gpu.xid) shares: reader keys, reader fields, and clearing. */
public final class KernelLogSpec {
    /** The entity of the log reading itself, in kernel.log and gpu.xid alike; no pattern may take its name. */
    public static final Entity LOG_ENTITY = Entity.of(Entity.Kind.LOG, "kernel log");
    private KernelLogSpec() {
    }

    /** Where a kernel-log probe reads; the daemon's follower watches the same place. */
    public static final ParamSpec<String> LOG = ParamSpec.text("log",
            "where to read: kmsg (/dev/kmsg), journal, or a file path such as /var/log/kern.log").defaultValue("kmsg")
            .check(s -> s.equals("kmsg") || s.equals("journal") || s.startsWith("/") ? null
                    : "must be kmsg, journal or an absolute file path, not '" + s + "'");
    public static final ParamSpec<Boolean> SINCE_BOOT = ParamSpec.flag("since_boot",
            "in a file, judge only the lines after this boot's first record (the kernel's \"Linux version\" banner); "
                    + "false to judge every line (old captures)").defaultValue(true);
    public static final ParamSpec<Long> MAX_LINES = ParamSpec.integer("max_lines",
            "new lines examined per run; the rest are counted as skipped").defaultValue(KernelLogReader.DEFAULT_MAX_LINES)
            .check(n -> n < 1 ? "must be at least 1, not " + n : null);
    public static final ParamSpec<String> JOURNALCTL = ParamSpec.text("journalctl", "journalctl executable for log: journal")
            .defaultValue("journalctl").names(ParamSpec.PathUse.RUN);

    /** A reader for this check, as its parameters say. */
    public static KernelLogReader reader(dev.nhc.probe.ProbeContext ctx) {
        dev.nhc.probe.Params p = ctx.params();
        return new KernelLogReader(ctx, LOG.get(p)).maxLines(MAX_LINES.get(p)).sinceBoot(SINCE_BOOT.get(p))
                .journalctl(JOURNALCTL.get(p));
    }

    /** Adds the reader's keys and fields to a probe's spec. */
    public static ProbeSpec.Builder withReader(ProbeSpec.Builder b) {
        return readerFields(readerParams(b));
    }

    /** The {@code with:} keys of the reader itself. */
    public static ProbeSpec.Builder readerParams(ProbeSpec.Builder b) {
        return b.param(LOG).param(SINCE_BOOT).param(MAX_LINES).param(JOURNALCTL);
    }

    /** The fields {@link #readerFields} declares, reported for the "kernel log" entity only. */
    public static final String[] READER_FIELDS = {"lines_read", "unparsed_lines", "other_lines", "skipped_lines", "before_boot_lines", "lost_records",
        "truncated_lines", "cursor_resets", "cursor_problem", "behind"};

    /** The fields of the "kernel log" entity that say how much was read and what could not be read. */
    public static ProbeSpec.Builder readerFields(ProbeSpec.Builder b) {
        return b.field("lines_read", Unit.COUNT, "new kernel log lines read this run")
                .field("unparsed_lines", Unit.COUNT, "new lines without a header nhc knows (a timestamp; in a syslog file the "
                        + "kernel: tag): who wrote them cannot be told, so they are not judged (a replay judges them)")
                .field("other_lines", Unit.COUNT, "new lines other programs wrote (a syslog tag other than kernel:, a facility "
                        + "other than the kernel's): never judged")
                .field("skipped_lines", Unit.COUNT, "new lines past max_lines, counted but not examined")
                .field("before_boot_lines", Unit.COUNT, "file lines of an earlier boot (before this boot's \"Linux version\" record), not examined")
                .field("lost_records", Unit.COUNT, "kmsg records overwritten before nhc read them")
                .field("truncated_lines", Unit.COUNT, "new lines longer than 64 KiB: their head was examined, the rest skipped")
                .field("cursor_resets", Unit.COUNT, "values of the reader's cursor in the check's state that were invalid and reset this run")
                .field("cursor_problem", Unit.TEXT, "what was wrong with them")
                .field("behind", Unit.BOOLEAN, "the log was not read to its end within the check's time; the rest is read next run")
                .reportedFor(Entity.Kind.LOG, READER_FIELDS)
                .optional("cursor_problem")
                // The log was still read, so nothing was missed; but state that was damaged or edited is worth a look.
                .rule(DefaultRule.warn(Map.of("cursor_resets", "> 0"), "kernel log cursor: {cursor_problem}"))
                // A format nhc cannot read (a custom syslog template) would otherwise judge nothing, silently.
                .rule(DefaultRule.warn(Map.of("unparsed_lines", "> 0"), "{unparsed_lines} new {unparsed_lines|line|lines} in {source} "
                        + "{unparsed_lines|has|have} no header nhc knows (a timestamp; in a syslog file the kernel: tag), so nhc cannot "
                        + "tell that the kernel wrote {unparsed_lines|it|them}: not judged"))
                // Lines were left for the next run: a log that always takes longer than the check's time falls further behind.
                .rule(DefaultRule.warn(Map.of("behind", true), "the kernel log was not read to its end within the check's time; "
                        + "the rest is read next run"));
    }

    public static Observation.Builder putStats(Observation.Builder o, ReadStats stats) {
        return o.put("lines_read", stats.linesRead()).put("unparsed_lines", stats.unparsedLines()).put("other_lines", stats.otherLines())
                .put("skipped_lines", stats.skippedLines()).put("before_boot_lines", stats.beforeBootLines())
                .put("lost_records", stats.lostRecords()).put("truncated_lines", stats.truncatedLines())
                .put("cursor_resets", (long) stats.warnings().size()).put("behind", stats.incomplete())
                .put("cursor_problem", stats.warnings().isEmpty() ? null : String.join("; ", stats.warnings()));
    }

    /**
     * {@code nhc clear}: forget latched events and counters but keep the log cursor, so that the
     * lines already judged (the repaired fault's) are not read and latched again.
     */
    public static void clearKeepingCursor(ProbeState state) {
        for (String key : state.snapshot().keySet()) {
            if (!key.startsWith("log.")) {
                state.remove(key);
            }
        }
    }
}
