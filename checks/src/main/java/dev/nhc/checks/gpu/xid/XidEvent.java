package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogLine;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One XID or SXID reported by the NVIDIA driver in the kernel log. {@code fatal} is TRUE or FALSE
 * when the line says "Fatal" / "Non-fatal" (NVLink5 and NVSwitch lines), else null.
 * {@code recoveryAction} is the new action of an XID 154 line ("Drain and Reset"), else null.
 */
public record XidEvent(Kind kind, String pci, int code, Boolean fatal, String recoveryAction, String text, String when) {

    public enum Kind { XID, SXID }

    public static final int FALLEN_OFF_THE_BUS = 79;
    public static final int RECOVERY_ACTION = 154;

    // The regex gpud and NVSentinel use, extended to keep the rest of the line.
    private static final Pattern XID = Pattern.compile("NVRM: Xid \\((?:PCI:)?([0-9a-fA-F:.]+)\\): (\\d+),\\s*(.*)");
    private static final Pattern SXID = Pattern.compile("SXid \\((?:PCI:)?([0-9a-fA-F:.]+)\\): (\\d+),\\s*(.*)");
    private static final Pattern OFF_THE_BUS = Pattern.compile("GPU at PCI:([0-9a-fA-F:.]+): GPU has fallen off the bus");
    private static final Pattern NON_FATAL = Pattern.compile("(?i)\\bnon-?fatal\\b");
    private static final Pattern FATAL = Pattern.compile("(?i)\\bfatal\\b");
    private static final Pattern ACTION = Pattern.compile("recovery action changed from 0x[0-9a-fA-F]+ \\(([^)]*)\\) to 0x[0-9a-fA-F]+ \\(([^)]*)\\)");

    /** The event in a kernel log line, if it reports one. Cheap for the many lines that do not. */
    public static Optional<XidEvent> parse(KernelLogLine line) {
        String msg = line.message();
        if (msg.indexOf("Xid") < 0 && msg.indexOf("fallen off the bus") < 0) {
            return Optional.empty();
        }
        Matcher m = SXID.matcher(msg);
        Kind kind = Kind.SXID;
        if (!m.find()) {
            m = XID.matcher(msg);
            kind = Kind.XID;
            if (!m.find()) {
                Matcher off = OFF_THE_BUS.matcher(msg);
                if (off.find()) {
                    return Optional.of(new XidEvent(Kind.XID, normalizePci(off.group(1)), FALLEN_OFF_THE_BUS, Boolean.TRUE, null,
                            "GPU has fallen off the bus", line.when()));
                }
                return Optional.empty();
            }
        }
        int code;
        try {
            code = Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        String rest = m.group(3).strip();
        Boolean fatal = NON_FATAL.matcher(rest).find() ? Boolean.FALSE : FATAL.matcher(rest).find() ? Boolean.TRUE : null;
        String action = null;
        if (code == RECOVERY_ACTION) {
            Matcher a = ACTION.matcher(rest);
            if (a.find()) {
                action = a.group(2).strip();
            }
        }
        return Optional.of(new XidEvent(kind, normalizePci(m.group(1)), code, fatal, action, rest, line.when()));
    }

    /** "PCI:0000:3B:00", "0000:3b:00.0", "00000000:3b:00.0", "3b:00" → "0000:3b:00". */
    public static String normalizePci(String address) {
        String a = address.toLowerCase(Locale.ROOT);
        if (a.startsWith("pci:")) {
            a = a.substring(4);
        }
        int dot = a.lastIndexOf('.');
        if (dot > 0 && dot > a.lastIndexOf(':')) {
            a = a.substring(0, dot);
        }
        String[] parts = a.split(":");
        if (parts.length == 2) {
            return "0000:" + a;
        }
        if (parts.length == 3 && parts[0].length() > 4 && parts[0].chars().limit(parts[0].length() - 4).allMatch(ch -> ch == '0')) {
            return parts[0].substring(parts[0].length() - 4) + ":" + parts[1] + ":" + parts[2];
        }
        return a;
    }
}
