package dev.nhc.checks.gpu.xid;

import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Which Slurm jobs had application XIDs (NVIDIA's resolution: restart the application) on which
 * GPU lately, kept in the check's state (key {@link #KEY}) across runs. An application XID is the
 * job's fault; the same GPU raising them under {@code application_jobs} different jobs within
 * {@code application_window} is the GPU's (NVIDIA's workflow for XIDs 13 and 31: repeated faults
 * on the same GPU point at the hardware, on different GPUs at the application). A storm that
 * follows one job across every GPU stays that job's: each GPU saw only one job. And when several
 * GPUs have had that many jobs, the faults follow the applications (a buggy program run again and
 * again, on whichever GPU it lands), not one GPU: none escalates.
 *
 * <p>Every value read back is checked (a damaged entry is dropped: at worst an escalation comes a
 * job later); entries older than the window are forgotten; the list is bounded.
 */
final class XidJobs {
    static final String KEY = "xid.jobs";
    static final int MAX_ENTRIES = 512;
    /** Processes named per GPU and XID in one run that nhc looks up; a storm names the same few again and again. */
    static final int MAX_PIDS = 16;
    private static final Pattern GPU = Pattern.compile("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}|gpu\\d{1,4}");
    private static final Pattern JOB = Pattern.compile("\\d{1,10}|s[0-9A-Z]{13}");

    /** Whose an application XID's lines were, for the message; {@code inJob} when one of them ran in a Slurm job. */
    record Culprit(String text, boolean inJob) {
    }

    /** A job seen with an application XID on a GPU (its PCI address, or "gpu<index>"), and when. */
    record Sighting(String gpu, String job, int xid, long atMillis) {
    }

    private final List<Sighting> sightings = new ArrayList<>();

    private XidJobs() {
    }

    static XidJobs load(ProbeState state, Instant now, Duration window) {
        XidJobs j = new XidJobs();
        if (!(state.get(KEY) instanceof List<?> list)) {
            return j;
        }
        long oldest = now.minus(window).toEpochMilli();
        long newest = now.plusSeconds(60).toEpochMilli();
        for (Object o : list) {
            if (o instanceof Map<?, ?> m && m.get("gpu") instanceof String g && GPU.matcher(g).matches()
                    && m.get("job") instanceof String job && JOB.matcher(job).matches()
                    && m.get("xid") instanceof Long x && x > 0 && x <= 65_535
                    && m.get("at") instanceof Long at && at >= oldest && at <= newest && j.sightings.size() < MAX_ENTRIES) {
                j.sightings.add(new Sighting(g, job, x.intValue(), at));
            }
        }
        return j;
    }

    /** GPU key as kept here: the PCI address when known, else NVML's index. */
    static String gpuKey(XidEvent e) {
        return e.pci() != null ? e.pci() : "gpu" + e.gpu();
    }

    /** Notes the process an XID line names, under the event's key (a bounded set per key). */
    static void notePid(Map<String, Set<Long>> pids, String key, XidEvent e) {
        long pid = e.pid();
        if (pid > 0) {
            Set<Long> s = pids.computeIfAbsent(key, k -> new LinkedHashSet<>());
            if (s.size() < MAX_PIDS) {
                s.add(pid);
            }
        }
    }

    /**
     * Looks up the Slurm jobs of the processes an application XID's lines named, records them for
     * the XID's GPU, and says whose they were for the message: "Slurm job 4242 (pid 1234)", "pid 1234,
     * in no Slurm job or no longer running", or null when the lines named no process.
     */
    Optional<Culprit> attribute(ProbeContext ctx, XidEvent e, Collection<Long> pids, Instant now) {
        if (pids == null || pids.isEmpty()) {
            return Optional.empty();
        }
        List<String> out = new ArrayList<>();
        boolean inJob = false;
        for (long pid : pids) {
            Optional<String> job = SlurmCgroup.jobOf(ctx, pid);
            job.ifPresent(j -> add(gpuKey(e), j, e.code(), now));
            inJob |= job.isPresent();
            out.add(job.map(j -> "Slurm job " + j + " (pid " + pid + ")").orElse("pid " + pid + ", in no Slurm job or no longer running"));
        }
        return Optional.of(new Culprit(String.join(", ", out), inJob));
    }

    /**
     * The event escalated to the GPU's fault when its GPU has had application XIDs under at least
     * {@code jobs} different jobs within the window and no other GPU has, else empty. The event is
     * marked fatal and its text says under which jobs, so that it latches like any fatal XID.
     */
    Optional<XidEvent> escalation(XidEvent e, long jobs, Duration window) {
        String gpu = gpuKey(e);
        TreeSet<String> seen = jobs(gpu);
        if (seen.size() < jobs || sightings.stream().map(Sighting::gpu).distinct().anyMatch(g -> !g.equals(gpu) && jobs(g).size() >= jobs)) {
            return Optional.empty();
        }
        String text = "under " + seen.size() + " Slurm jobs (" + String.join(", ", seen) + ") within " + human(window)
                + ": the GPU's fault, not the jobs'; last: " + e.text();
        return Optional.of(new XidEvent(e.kind(), e.pci(), e.gpu(), e.code(), Boolean.TRUE, null, text, e.when()));
    }

    private static String human(Duration d) {
        return d.toMinutes() % 60 == 0 ? d.toHours() + "h" : d.toMinutes() + "m";
    }

    void add(String gpu, String job, int xid, Instant at) {
        if (!JOB.matcher(job).matches()) {
            return;
        }
        sightings.removeIf(s -> s.gpu().equals(gpu) && s.job().equals(job) && s.xid() == xid);
        sightings.add(new Sighting(gpu, job, xid, at.toEpochMilli()));
        if (sightings.size() > MAX_ENTRIES) {
            sightings.sort(Comparator.comparingLong(Sighting::atMillis));
            sightings.subList(0, sightings.size() - MAX_ENTRIES).clear();
        }
    }

    /** The distinct jobs with application XIDs on {@code gpu} within the window, in order. */
    TreeSet<String> jobs(String gpu) {
        TreeSet<String> out = new TreeSet<>();
        for (Sighting s : sightings) {
            if (s.gpu().equals(gpu)) {
                out.add(s.job());
            }
        }
        return out;
    }

    void save(ProbeState state) {
        List<Object> out = new ArrayList<>();
        for (Sighting s : sightings) {
            out.add(Map.of("gpu", s.gpu(), "job", s.job(), "xid", (long) s.xid(), "at", s.atMillis()));
        }
        state.put(KEY, out.isEmpty() ? null : out);
    }
}
