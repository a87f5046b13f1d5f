package dev.nhc.checks.gpu.xid;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver's own tail of an NVLink5 XID line (144-150): the unit, the severity it states, and
 * the link's first two registers — "SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 …)".
 * The first register is the interrupt info ("intrinfo") NVIDIA's decode table matches bit by bit,
 * the second the error status; {@code status} is null when the line has only one register.
 *
 * <p>Read only at the end of the line: a line that names a process ("pid=…, name=…, RLW_RXPIPE
 * Nonfatal …") has the user's program name before it, which may say anything.
 */
record Nvlink5Line(String unit, boolean fatal, long intrinfo, Long status) {
    private static final Pattern TAIL = Pattern.compile("(?i)\\b([a-z][a-z0-9_/]*)\\s+(fatal|non-?fatal)\\s+XC\\d+\\s+i\\d+\\s+Link\\s+-?\\d+\\s+"
            + "\\((0x[0-9a-f]{1,8})(?:\\s+(0x[0-9a-f]{1,8}))?(?:\\s+0x[0-9a-f]{1,8})*\\s*\\)\\s*$");

    /** The tail of {@code rest} (the line after the XID number), if it ends with one. */
    static Optional<Nvlink5Line> parse(String rest) {
        Matcher m = TAIL.matcher(rest);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new Nvlink5Line(m.group(1).toUpperCase(Locale.ROOT), !m.group(2).toLowerCase(Locale.ROOT).startsWith("non"),
                Long.decode(m.group(3)), m.group(4) == null ? null : Long.decode(m.group(4))));
    }
}
