package dev.nhc.checks.gpu.xid;

import dev.nhc.model.Remedy;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What NVIDIA's catalogue and DCGM's health rules (reference/gpu.md) say about each XID: whether
 * it is fatal (stays until the GPU is reset or the node rebooted), a warning, or not the node's
 * problem; what to do about it; and what it means. The check's {@code fail:}, {@code warn:} and
 * {@code ignore:} lists reclassify (ignore wins over fail, fail over warn). Application XIDs (13,
 * 43, 45) are the job's fault, not the node's: they are never fatal, even when a config lists them
 * under {@code fail:} (they are then warnings). XIDs in no list are warnings, so an XID NVIDIA adds
 * next year is seen rather than dropped. This only classifies; the probe's default rules decide.
 */
public final class XidTable {
    /** How an XID bears on the node. */
    public enum Impact {
        /** Latched: the GPU needs a reset or the node a reboot. */
        FATAL,
        /** Reported for the run that saw it. */
        WARNING,
        /** The application's fault (13, 43, 45 unlisted): counted, not the node's problem. */
        APPLICATION_FAULT,
        /** Listed under {@code ignore:}. */
        IGNORED,
        /** XID 154 back to "None" (or to a lesser action): the driver says the GPU recovered. */
        RECOVERED
    }

    public static final Set<Integer> DEFAULT_FAIL = Set.of(48, 64, 74, 79, 95, 119, 120, 140);
    public static final Set<Integer> DEFAULT_WARN = Set.of(31, 32, 38, 39, 42, 54, 56, 57, 58, 60, 61, 62, 63, 67, 68, 69,
            73, 78, 92, 94, 109, 121, 137, 143, 155, 156, 158);
    public static final Set<Integer> APPLICATION = Set.of(13, 43, 45);
    /** NVLink5 XIDs: the line itself says whether the error is "Fatal". */
    private static final int NVLINK5_FIRST = 144;
    private static final int NVLINK5_LAST = 150;

    private static final Map<Integer, String> MEANING = Map.ofEntries(
            Map.entry(13, "graphics engine exception"), Map.entry(31, "GPU memory page fault"),
            Map.entry(32, "invalid or corrupted push buffer stream"), Map.entry(38, "driver firmware error"),
            Map.entry(39, "PCIe error"), Map.entry(42, "PCIe error"),
            Map.entry(43, "channel reset, the application stopped"), Map.entry(45, "preemptive cleanup"),
            Map.entry(48, "double-bit ECC error"), Map.entry(54, "reduced clocking (power)"),
            Map.entry(56, "display engine error"), Map.entry(57, "power error"), Map.entry(58, "power error"),
            Map.entry(60, "thermal event"), Map.entry(61, "PMU breakpoint"), Map.entry(62, "PMU halt"),
            Map.entry(63, "row remap / page retirement recorded"), Map.entry(64, "row remap / page retirement failure"),
            Map.entry(67, "NVLink error"), Map.entry(68, "video decoder error"), Map.entry(69, "graphics class error"),
            Map.entry(73, "NVLink error"), Map.entry(74, "NVLink error"), Map.entry(78, "power error"),
            Map.entry(79, "GPU has fallen off the bus"), Map.entry(92, "excessive single-bit ECC errors"),
            Map.entry(94, "contained ECC error"), Map.entry(95, "uncontained ECC error"),
            Map.entry(109, "context-switch timeout"), Map.entry(119, "GSP RPC timeout"), Map.entry(120, "GSP error"),
            Map.entry(121, "C2C error"), Map.entry(137, "NVLink error"), Map.entry(140, "unrecoverable ECC error"),
            Map.entry(143, "GPU initialization error"), Map.entry(144, "NVLink5 error"), Map.entry(145, "NVLink5 error"),
            Map.entry(146, "NVLink5 error"), Map.entry(147, "NVLink5 error"), Map.entry(148, "NVLink5 error"),
            Map.entry(149, "NVLink5 error"), Map.entry(150, "NVLink5 error"), Map.entry(154, "GPU recovery action changed"),
            Map.entry(155, "NVLink software-defined error"), Map.entry(156, "resource retirement"),
            Map.entry(158, "NVLink fatal timeout"));

    private final Set<Integer> fail;
    private final Set<Integer> warn;
    private final Set<Integer> ignore;

    public XidTable(Collection<? extends Number> fail, Collection<? extends Number> warn, Collection<? extends Number> ignore) {
        this.fail = ints(fail);
        this.warn = ints(warn);
        this.ignore = ints(ignore);
    }

    public static XidTable defaults() {
        return new XidTable(Set.of(), Set.of(), Set.of());
    }

    private static Set<Integer> ints(Collection<? extends Number> c) {
        Set<Integer> s = new HashSet<>();
        if (c != null) {
            c.forEach(n -> s.add(n.intValue()));
        }
        return s;
    }

    public Impact impact(XidEvent e) {
        if (e.kind() == XidEvent.Kind.SXID) {
            return Boolean.TRUE.equals(e.fatal()) ? Impact.FATAL : Impact.WARNING;
        }
        int x = e.code();
        if (ignore.contains(x)) {
            return Impact.IGNORED;
        }
        if (APPLICATION.contains(x)) {
            return fail.contains(x) || warn.contains(x) ? Impact.WARNING : Impact.APPLICATION_FAULT;
        }
        if (fail.contains(x)) {
            return Impact.FATAL;
        }
        if (warn.contains(x)) {
            return Impact.WARNING;
        }
        if (x == XidEvent.RECOVERY_ACTION) {
            return actionImpact(e.recoveryAction());
        }
        if (x >= NVLINK5_FIRST && x <= NVLINK5_LAST) {
            return Boolean.TRUE.equals(e.fatal()) ? Impact.FATAL : Impact.WARNING;
        }
        if (DEFAULT_FAIL.contains(x)) {
            return Impact.FATAL;
        }
        return Impact.WARNING;
    }

    /** DCGM's driver health rule: RESET, REBOOT and DRAIN_RESET fail; DRAIN_P2P warns; None is healthy again. */
    private static Impact actionImpact(String action) {
        if (action == null) {
            return Impact.WARNING;
        }
        String a = action.toLowerCase(Locale.ROOT);
        if (a.equals("none")) {
            return Impact.RECOVERED;
        }
        if (a.contains("reset") || a.contains("reboot")) {
            return Impact.FATAL;
        }
        return Impact.WARNING;
    }

    public static Remedy remedy(XidEvent e) {
        if (e.kind() == XidEvent.Kind.SXID) {
            return Remedy.RESET_GPU;
        }
        int x = e.code();
        if (x == XidEvent.RECOVERY_ACTION) {
            String a = e.recoveryAction() == null ? "" : e.recoveryAction().toLowerCase(Locale.ROOT);
            return a.contains("reboot") ? Remedy.REBOOT : a.contains("reset") ? Remedy.RESET_GPU : Remedy.NONE;
        }
        return switch (x) {
            case 13, 31, 43, 45, 68, 69 -> Remedy.RESTART_APP;
            case 48, 61, 62, 63, 74, 95, 109, 119, 120, 140, 155, 156, 158 -> Remedy.RESET_GPU;
            case 79, 121 -> Remedy.REBOOT;
            case 54, 64, 143 -> Remedy.HARDWARE;
            default -> x >= NVLINK5_FIRST && x <= NVLINK5_LAST ? Remedy.RESET_GPU : Remedy.NONE;
        };
    }

    /** A GPU off the bus or a failed row remap needs service, not just a drain (DESIGN's Slurm FAIL state). */
    public static boolean needsService(XidEvent e) {
        return e.kind() == XidEvent.Kind.XID && (e.code() == XidEvent.FALLEN_OFF_THE_BUS || e.code() == 64);
    }

    public static String meaning(XidEvent e) {
        if (e.kind() == XidEvent.Kind.SXID) {
            return Boolean.TRUE.equals(e.fatal()) ? "fatal NVSwitch error" : "NVSwitch error";
        }
        String m = MEANING.getOrDefault(e.code(), "see NVIDIA's XID catalogue");
        if (e.code() == XidEvent.RECOVERY_ACTION && e.recoveryAction() != null) {
            return m + " to " + e.recoveryAction();
        }
        if (e.code() >= NVLINK5_FIRST && e.code() <= NVLINK5_LAST && Boolean.TRUE.equals(e.fatal())) {
            return "fatal " + m;
        }
        return m;
    }
}
