package dev.nhc.checks.kernel;

import java.util.List;

/**
 * What one {@link KernelLogReader#read} did. {@code linesRead}: new lines taken from the source
 * this run; {@code unparsedLines}: of those, lines without a header nhc knows, so that who wrote
 * them cannot be told (not handed to the sink, except in a replay); {@code otherLines}: lines
 * other programs wrote (a syslog tag other than {@code kernel:}, a facility other than the
 * kernel's), never handed on; {@code skippedLines}: new lines past the per-run bound that were
 * counted but not examined; {@code beforeBootLines}: lines of an earlier boot (before the
 * kernel's banner of this boot in a file), not examined; {@code lostRecords}: kmsg records the
 * ring buffer overwrote before nhc read them; {@code bootChanged}: the boot id differs from the
 * one stored with the cursor; {@code restarted}: the cursor was dropped (first run, new boot for
 * kmsg/journal, a rotated, replaced, truncated or rewritten file); {@code incomplete}: the deadline
 * came first, the rest is read next run; {@code truncatedLines}: lines longer than the reader
 * keeps (their head was examined, the rest skipped); {@code warnings}: what was wrong with the
 * cursor kept in state (each value was reset, and the new lines were still read).
 */
public record ReadStats(String source, long linesRead, long unparsedLines, long otherLines, long skippedLines, long beforeBootLines,
                        long lostRecords, boolean bootChanged, boolean restarted, boolean incomplete,
                        long truncatedLines, List<String> warnings) {

    public ReadStats {
        warnings = List.copyOf(warnings);
    }
}
