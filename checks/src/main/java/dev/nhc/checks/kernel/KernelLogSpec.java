package dev.nhc.checks.kernel;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.units.Unit;

import java.util.List;

/** What every probe over new kernel log lines (kernel.log, gpu.xid) shares: reader keys, reader fields, and clearing. */
public final class KernelLogSpec {
    private KernelLogSpec() {
    }

    /** Adds the reader's keys and fields to a probe's spec. */
    public static ProbeSpec.Builder withReader(ProbeSpec.Builder b) {
        return readerFields(readerParams(b));
    }

    /** The {@code with:} keys of the reader itself (the probe declares {@code log} with its own default). */
    public static ProbeSpec.Builder readerParams(ProbeSpec.Builder b) {
        return b.param(ParamSpec.optional("since_boot", ParamType.BOOLEAN, Boolean.TRUE,
                        "judge only file lines stamped since this boot; false to replay old captures"))
                .param(ParamSpec.optional("max_lines", ParamType.INTEGER, KernelLogReader.DEFAULT_MAX_LINES,
                        "new lines examined per run; the rest are counted as skipped"))
                .param(ParamSpec.optional("journalctl", ParamType.STRING, "journalctl", "journalctl executable for log: journal"));
    }

    /** The fields of the "kernel log" entity that say how much was read and what could not be read. */
    public static ProbeSpec.Builder readerFields(ProbeSpec.Builder b) {
        return b.field("lines_read", Unit.COUNT, "new kernel log lines read this run")
                .field("unparsed_lines", Unit.COUNT, "new lines without a timestamp nhc understands (still examined)")
                .field("skipped_lines", Unit.COUNT, "new lines past max_lines, counted but not examined")
                .field("before_boot_lines", Unit.COUNT, "file lines stamped before this boot, not examined")
                .field("lost_records", Unit.COUNT, "kmsg records overwritten before nhc read them")
                .field("truncated_lines", Unit.COUNT, "new lines longer than 64 KiB: their head was examined, the rest skipped");
    }

    public static Observation.Builder putStats(Observation.Builder o, ReadStats stats) {
        return o.put("lines_read", stats.linesRead()).put("unparsed_lines", stats.unparsedLines())
                .put("skipped_lines", stats.skippedLines()).put("before_boot_lines", stats.beforeBootLines())
                .put("lost_records", stats.lostRecords()).put("truncated_lines", stats.truncatedLines());
    }

    /** One WARN finding on the "kernel log" entity per problem with the stored cursor (the value was reset and the log still read). */
    public static List<Finding> warnings(ReadStats stats) {
        return stats.warnings().stream()
                .map(w -> Finding.of("kernel log", Severity.WARN, "kernel log cursor: " + w))
                .toList();
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
