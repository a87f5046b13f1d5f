package dev.nhc.checks.kernel;

import java.time.Instant;

/**
 * One kernel log record. {@code position} is the kmsg sequence number or the line number in a
 * file or journal batch. {@code time} is absolute when the source says (or when it could be
 * derived from the boot time), else null; {@code uptimeSeconds} is the dmesg "[171167.620236]"
 * form, else null. {@code timestampParsed} false means the line had no timestamp nhc understands:
 * its whole text is the {@code message} and it is counted as unparsed.
 */
public record KernelLogLine(long position, Instant time, Double uptimeSeconds, String message, boolean timestampParsed) {

    /** How a message names this record's time, for messages and latches: ISO instant, else "[uptime]", else "". */
    public String when() {
        if (time != null) {
            return time.toString();
        }
        if (uptimeSeconds != null) {
            return String.format(java.util.Locale.ROOT, "[%.6f]", uptimeSeconds);
        }
        return "";
    }
}
