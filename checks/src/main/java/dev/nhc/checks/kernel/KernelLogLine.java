package dev.nhc.checks.kernel;

import java.time.Instant;

/**
 * One kernel log line. {@code position} is the kmsg sequence number or the line number in a
 * file or journal batch. {@code time} is absolute when the source says (or when it could be
 * derived from the boot time), else null: it is for messages only, never to place a line in a
 * boot. {@code uptimeSeconds} is the kernel's own monotonic stamp (the kmsg record's, journald's
 * {@code __MONOTONIC_TIMESTAMP}, dmesg's "[171167.620236]"), else null. {@code message} is the
 * record's text after its source's header (kmsg prefix, dmesg stamp, syslog time, host and tag).
 */
public record KernelLogLine(long position, Instant time, Double uptimeSeconds, String message, Origin origin) {

    /** Who wrote the line, as far as its source can tell. */
    public enum Origin {
        /**
         * The start of a record the kernel logged: a /dev/kmsg record of facility 0, a journal entry
         * with {@code _TRANSPORT=kernel}, a syslog line tagged {@code kernel:}, a dmesg line (the
         * ring buffer holds only what the kernel and root wrote; with {@code --decode}, facility
         * {@code kern} only).
         */
        KERNEL,
        /** A further line of the record before it (dmesg and journalctl indent them): never the start of a record. */
        CONTINUATION,
        /** Another program's record: a syslog tag other than {@code kernel:}, a facility other than the kernel's. */
        OTHER,
        /** No header nhc knows: who wrote it cannot be told. */
        UNKNOWN
    }

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

    /** This line begins a record (not a continuation of the one before). */
    public boolean startsRecord() {
        return origin != Origin.CONTINUATION;
    }
}
