package dev.nhc.checks.gpu.xid;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/** What gpu.xid observes for one GPU (or NVSwitch): its latched XIDs, this run's, and the jobs of its application XIDs. */
final class XidEntity {
    private static final int TEXT_MAX = 160;

    final Entity entity;
    final List<String> fatal = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    final SortedSet<String> jobs = new TreeSet<>();
    long latched;
    long warningLines;
    long newLines;
    Integer lastXid;
    boolean needsService;
    Remedy worstFatal = Remedy.NONE;
    Remedy worstWarning = Remedy.NONE;

    XidEntity(Entity entity) {
        this.entity = entity;
    }

    void latched(XidLatches.Latch l) {
        latched++;
        needsService |= XidTable.needsService(l.event());
        worstFatal = worse(worstFatal, XidTable.remedy(l.event()));
        fatal.add(describe(l.event(), null, l.count(), " since ", l.first()));
    }

    void seen(long count, XidEvent last) {
        newLines += count;
        lastXid = last.code();
    }

    /** A warning this run, or an application XID (told, not counted as a warning), with the job it came from. */
    void warning(XidEvent e, long count, String firstWhen, String culprit, boolean counts) {
        if (counts) {
            warningLines += count;
            worstWarning = worse(worstWarning, XidTable.remedy(e));
        }
        warnings.add(describe(e, culprit, count, " at ", firstWhen));
    }

    void jobs(SortedSet<String> ids) {
        jobs.addAll(ids);
    }

    Observation observation() {
        List<String> all = new ArrayList<>(fatal);
        all.addAll(warnings);
        Remedy remedy = latched > 0 ? worstFatal : worstWarning;
        return Observation.of(entity).put("xid_latched", latched).put("xid_warning", warningLines).put("xid_new", newLines)
                .put("last_xid", lastXid).put("needs_service", needsService)
                .put("xid_jobs", (long) jobs.size()).put("jobs", jobs.isEmpty() ? null : String.join(", ", jobs))
                .put("xids", all.isEmpty() ? null : String.join("; ", all))
                .put("remedy", all.isEmpty() ? null : remedy.label()).build();
    }

    private static Remedy worse(Remedy a, Remedy b) {
        return b.ordinal() > a.ordinal() ? b : a;
    }

    /** "XID 48 (double-bit ECC error) ×2 since 2026-11-22T04:10:00Z: An uncorrectable double bit error (DBE)". */
    private static String describe(XidEvent e, String culprit, long count, String sinceOrAt, String when) {
        StringBuilder b = new StringBuilder();
        b.append(e.kind() == XidEvent.Kind.SXID ? "SXID " : "XID ").append(e.code()).append(" (").append(XidTable.meaning(e)).append(')');
        if (culprit != null) {
            b.append(" in ").append(culprit);
        }
        if (count > 1) {
            b.append(" ×").append(count);
        }
        if (when != null && !when.isEmpty()) {
            b.append(sinceOrAt).append(when);
        }
        if (e.text() != null && !e.text().isEmpty()) {
            b.append(": ").append(XidLatches.clip(e.text(), TEXT_MAX));
        }
        return b.toString();
    }
}
