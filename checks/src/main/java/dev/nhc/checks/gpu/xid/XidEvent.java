package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogLine;
import dev.nhc.checks.kernel.RecordText;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One XID or SXID the NVIDIA driver reported, from a kernel log line or an NVML event.
 * {@code pci} is the short bus address ("0000:3b:00", see {@link #normalizePci}), null when only
 * NVML's index is known; {@code gpu} is NVML's index when the event came from NVML, else null.
 * {@code fatal} is TRUE or FALSE when the line says "Fatal" / "Non-fatal" (NVLink5 and NVSwitch
 * lines), else null. {@code recoveryAction} is the new action of an XID 154 line ("Drain and
 * Reset"), else null.
 */
public record XidEvent(Kind kind, String pci, Integer gpu, int code, Boolean fatal, String recoveryAction, String text, String when) {

    public enum Kind { XID, SXID }

    public static final int FALLEN_OFF_THE_BUS = 79;
    public static final int RECOVERY_ACTION = 154;
    /** "pid=1234," right after the XID number: the driver's fixed position, before the user-named process. */
    private static final Pattern PID = Pattern.compile("^pid=(\\d{1,10}),");

    // The regex gpud and NVSentinel use, extended to keep the rest of the line. Every pattern here is
    // matched at the start of a kernel record's text only (RecordText): never inside another's.
    private static final Pattern XID = Pattern.compile("NVRM: Xid \\((?:PCI:)?([0-9a-fA-F:.]+)\\): (\\d+),\\s*(.*)");
    /** "nvidia-nvswitch3: SXid (PCI:0000:c2:00.0): 20034, Fatal, Link 30 LTSSM Fault Up": the switch's device name first. */
    private static final Pattern SXID = Pattern.compile("(?:nvidia-nvswitch\\d+: )?SXid \\((?:PCI:)?([0-9a-fA-F:.]+)\\): (\\d+),\\s*(.*)");
    /** Older drivers: "NVRM: GPU at PCI:0000:5e:00: GPU has fallen off the bus."; newer: "NVRM: GPU 0000:5e:00.0: GPU has …". */
    private static final Pattern OFF_THE_BUS = Pattern.compile("NVRM: GPU (?:at PCI:)?([0-9a-fA-F]+:[0-9a-fA-F:.]+): GPU has fallen off the bus");
    /**
     * The driver's probe-time message, printed as one record over three lines and without an XID
     * number: "NVRM: The NVIDIA GPU 0000:5d:00.0 / NVRM: (PCI ID: 10de:2330) installed in this
     * system has / NVRM: fallen off the bus and is not responding to commands." /dev/kmsg keeps it
     * as one record (the line breaks escaped); a dmesg or journal text splits it, see {@link XidLines}.
     */
    static final Pattern THE_NVIDIA_GPU = Pattern.compile("NVRM: The NVIDIA GPU ([0-9a-fA-F]+:[0-9a-fA-F:.]+)");
    static final String FALLEN_OFF = "fallen off the bus";
    /** The third line of that message, as a record or a continuation line of its own. */
    static final String FALLEN_OFF_LINE = "NVRM: " + FALLEN_OFF;
    private static final Pattern NON_FATAL = Pattern.compile("(?i)\\bnon-?fatal\\b");
    private static final Pattern FATAL = Pattern.compile("(?i)\\bfatal\\b");
    // Both read at the end of the line: the driver's own words come last, after any process name the user chose.
    private static final Pattern ACTION = Pattern.compile("recovery action changed from 0x[0-9a-fA-F]+ \\(([^)]*)\\) to 0x[0-9a-fA-F]+ \\(([^)]*)\\)\\.?\\s*$");

    /**
     * The event one kernel log line reports by itself, if any: only at the start of a kernel
     * record's text, never in a continuation line or a record that starts with a task's name
     * ({@link RecordText}). Cheap for the many lines that report none.
     */
    public static Optional<XidEvent> parse(KernelLogLine line) {
        if (!line.startsRecord()) {
            return Optional.empty();
        }
        String msg = line.message();
        boolean nvrm = msg.startsWith("NVRM: ");
        if (!nvrm && !msg.startsWith("nvidia-nvswitch") && !msg.startsWith("SXid ")) {
            return Optional.empty();
        }
        if (RecordText.userLed(msg)) {
            return Optional.empty();
        }
        if (!nvrm) {
            Matcher s = SXID.matcher(msg);
            return s.lookingAt() ? xidLine(s, Kind.SXID, line.when()) : Optional.empty();
        }
        Matcher x = XID.matcher(msg);
        if (x.lookingAt()) {
            return xidLine(x, Kind.XID, line.when());
        }
        if (msg.indexOf(FALLEN_OFF) >= 0) {
            Matcher m = OFF_THE_BUS.matcher(msg);
            if (m.lookingAt()) {
                return Optional.of(fallenOffTheBus(m.group(1), line.when()));
            }
            // /dev/kmsg and the journal keep the driver's three-line message as one record (its line breaks as \x0a)
            Matcher probe = THE_NVIDIA_GPU.matcher(msg);
            if (probe.lookingAt() && msg.indexOf(FALLEN_OFF_LINE, probe.end()) > 0) {
                return Optional.of(fallenOffTheBus(probe.group(1), line.when()));
            }
        }
        return Optional.empty();
    }

    private static Optional<XidEvent> xidLine(Matcher m, Kind kind, String when) {
        int code;
        try {
            code = Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        String rest = m.group(3).strip();
        Boolean fatal = severity(kind, code, rest);
        String action = null;
        if (code == RECOVERY_ACTION) {
            Matcher a = ACTION.matcher(rest);
            if (a.find()) {
                action = a.group(2).strip();
            }
        }
        return Optional.of(new XidEvent(kind, normalizePci(m.group(1)), null, code, fatal, action, rest, when));
    }

    /**
     * The process the driver names in an XID line ("…: 31, pid=1234, name=python, …"), or 0 when it
     * names none ("pid='&lt;unknown&gt;'", NVML's events, SXids). Read only at its fixed place right
     * after the XID number, never from the process name that follows.
     */
    long pid() {
        if (kind != Kind.XID || text == null) {
            return 0;
        }
        Matcher m = PID.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /**
     * The severity a line states, only for the lines whose severity is their own word (SXids, NVLink5
     * 144-150): TRUE "Fatal", FALSE "Non-fatal", null when it says neither. An NVLink5 line is read
     * only at its end, the driver's tail ({@link Nvlink5Line}: a line that names a process has the
     * name the user gave the program before it, which may say "Fatal"), and decoded by NVIDIA's
     * table: TRUE also when the table's action for its unit and status is a reset ({@link Nvlink5Decode}).
     */
    private static Boolean severity(Kind kind, int code, String rest) {
        if (kind == Kind.XID && (code < Nvlink5Decode.FIRST || code > Nvlink5Decode.LAST)) {
            return null;
        }
        if (kind == Kind.XID) {
            Optional<Nvlink5Decode.Decoded> decoded = Nvlink5Decode.decode(code, rest);
            if (decoded.isPresent()) {
                return decoded.get().decision() == Nvlink5Decode.Decision.FATAL;
            }
        }
        if (rest.startsWith("pid=")) {
            return null;
        }
        return NON_FATAL.matcher(rest).find() ? Boolean.FALSE : FATAL.matcher(rest).find() ? Boolean.TRUE : null;
    }

    /** XID 79 as the driver words it without a number. */
    static XidEvent fallenOffTheBus(String pci, String when) {
        return new XidEvent(Kind.XID, normalizePci(pci), null, FALLEN_OFF_THE_BUS, Boolean.TRUE, null, "GPU has fallen off the bus", when);
    }

    /** An XID NVML's event watcher reported for GPU {@code gpu} (-1: NVML could not say which) at {@code pciBusId} (may be null). */
    public static XidEvent fromNvml(NvmlXidEvents.Event e) {
        int code = e.xid() > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) e.xid();
        String pci = e.pciBusId() == null || e.pciBusId().isBlank() ? null : normalizePci(e.pciBusId());
        Integer gpu = e.gpu() >= 0 ? e.gpu() : null;
        return new XidEvent(Kind.XID, pci, gpu, code, null, null, "reported by NVML", e.at() == null ? "" : e.at().toString());
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
