package dev.nhc.checks.gpu.xid;

import dev.nhc.model.Remedy;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * How gpu.xid judges one XID or SXID event: NVIDIA's catalogue as {@link XidMapping} reads it
 * ({@link XidCatalogue}, {@link SxidCatalogue}), then the check's {@code fail:}, {@code warn:} and
 * {@code ignore:} lists (ignore wins over fail, fail over warn). An application XID (NVIDIA:
 * restart the application) is never made fatal by a config's {@code fail:} (any user can raise one
 * at will: it becomes a warning); it is fatal only when nhc escalated it ({@link XidJobs}: the same
 * GPU under several jobs). An XID the catalogue does not list is a warning, so an XID NVIDIA adds
 * next year is seen rather than dropped. An NVLink5 XID (144-150) is what its line and NVIDIA's
 * decode table say ({@link Nvlink5Decode}). This only classifies; the probe's default rules decide.
 */
public final class XidTable {
    /** How an event bears on the node. */
    public enum Impact {
        /** Latched: the GPU needs a reset or the node a reboot (or, escalated, a look at the hardware). */
        FATAL,
        /** Reported for the run that saw it. */
        WARNING,
        /** The application's fault: counted per job, not the node's problem. */
        APPLICATION_FAULT,
        /** NVIDIA says no action, or listed under {@code ignore:}. */
        IGNORED,
        /** XID 154 back to "None" (or to a lesser action): the driver says the GPU recovered. */
        RECOVERED
    }

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

    private static Optional<XidMapping.Judgement> judgement(int xid) {
        return XidCatalogue.get().entry(xid).map(XidCatalogue.Entry::judgement);
    }

    /** An XID NVIDIA's catalogue calls the application's (restart the application): counted per job. */
    public static boolean applicationOrigin(XidEvent e) {
        return e.kind() == XidEvent.Kind.XID && judgement(e.code()).map(XidMapping.Judgement::application).orElse(false);
    }

    /** An application XID nhc escalated to the GPU's fault (the same GPU under several jobs): the event is marked fatal. */
    static boolean escalated(XidEvent e) {
        return applicationOrigin(e) && Boolean.TRUE.equals(e.fatal());
    }

    public Impact impact(XidEvent e) {
        if (e.kind() == XidEvent.Kind.SXID) {
            return SxidCatalogue.get().fatal(e.code(), e.fatal()) ? Impact.FATAL : Impact.WARNING;
        }
        int x = e.code();
        if (ignore.contains(x)) {
            return Impact.IGNORED;
        }
        if (escalated(e)) {
            return Impact.FATAL;
        }
        if (applicationOrigin(e) && (fail.contains(x) || warn.contains(x))) {
            return Impact.WARNING;
        }
        if (fail.contains(x)) {
            return Impact.FATAL;
        }
        if (warn.contains(x)) {
            return Impact.WARNING;
        }
        XidMapping.Judgement j = judgement(x).orElse(null);
        if (j == null) {
            return Impact.WARNING;
        }
        return switch (j.impact()) {
            case FATAL -> Impact.FATAL;
            case WARNING -> Impact.WARNING;
            case APPLICATION -> Impact.APPLICATION_FAULT;
            case IGNORE -> Impact.IGNORED;
            case BY_LINE -> x == XidEvent.RECOVERY_ACTION ? actionImpact(e.recoveryAction())
                    : Boolean.TRUE.equals(e.fatal()) ? Impact.FATAL : Nvlink5Decode.ignores(e) ? Impact.IGNORED : Impact.WARNING;
        };
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
            return SxidCatalogue.get().remedy(e.code());
        }
        if (e.code() == XidEvent.RECOVERY_ACTION) {
            String a = e.recoveryAction() == null ? "" : e.recoveryAction().toLowerCase(Locale.ROOT);
            return a.contains("reboot") ? Remedy.REBOOT : a.contains("reset") ? Remedy.RESET_GPU : Remedy.NONE;
        }
        if (escalated(e)) {
            return Remedy.HARDWARE;
        }
        return judgement(e.code()).map(XidMapping.Judgement::remedy).orElse(Remedy.NONE);
    }

    /** The catalogue asks for service, not just a drain (Slurm FAIL): see {@link XidMapping}. */
    public static boolean needsService(XidEvent e) {
        return e.kind() == XidEvent.Kind.XID && !escalated(e) && judgement(e.code()).map(XidMapping.Judgement::service).orElse(false);
    }

    /** "double bit ECC error", "fatal NVSwitch error (SXid 12028, egress nonposted PRIV error)". */
    public static String meaning(XidEvent e) {
        if (e.kind() == XidEvent.Kind.SXID) {
            String name = SxidCatalogue.get().entry(e.code()).map(s -> ", " + s.name()).orElse("");
            return (Boolean.TRUE.equals(e.fatal()) ? "fatal NVSwitch error" : "NVSwitch error") + name;
        }
        Optional<XidCatalogue.Entry> entry = XidCatalogue.get().entry(e.code());
        String m = entry.map(c -> c.description().equals("Unused") ? c.mnemonic() : c.description())
                .orElse("not in NVIDIA's XID catalogue");
        if (e.code() == XidEvent.RECOVERY_ACTION && e.recoveryAction() != null) {
            return m + " to " + e.recoveryAction();
        }
        if (entry.isPresent() && entry.get().judgement().impact() == XidMapping.Impact.BY_LINE) {
            String decoded = Nvlink5Decode.decode(e.code(), e.text()).flatMap(Nvlink5Decode.Decoded::row)
                    .map(r -> "; " + r.describe()).orElse("");
            return (Boolean.TRUE.equals(e.fatal()) ? "fatal " : "") + m + decoded;
        }
        return m;
    }
}
