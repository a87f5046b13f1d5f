package dev.nhc.checks.gpu.xid;

import dev.nhc.probe.ProbeContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Slurm job a process runs in, from its cgroup ({@code /proc/PID/cgroup} under the context's
 * root). The paths are the ones slurmstepd makes (Slurm's src/plugins/cgroup):
 * <ul>
 *   <li>cgroup v1: {@code <prepend>/uid_<uid>/job_<id>/step_<step>/task_<n>} per controller, with
 *       {@code CgroupPrepend} "/slurm" by default ("/slurm_<node>" with several slurmd per host),
 *       e.g. {@code 4:memory:/slurm/uid_1000/job_4242/step_0/task_0};</li>
 *   <li>cgroup v2: {@code /system.slice/slurmstepd.scope/job_<id>/step_<step>/user/task_<n>}
 *       ({@code <node>_slurmstepd.scope} with several slurmd), e.g.
 *       {@code 0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0}; from Slurm 26.05
 *       the job directory is the job's SLUID ("s5K1KKYAYG5D00") unless cgroup.conf has
 *       {@code CgroupJobIdPaths=yes}.</li>
 * </ul>
 * The job is named as the path names it: the numeric job id, or the SLUID. The process may have
 * exited by the time nhc reads the log (a one-shot run reads it minutes later): then there is no
 * job, and the XID is judged without one.
 */
final class SlurmCgroup {
    /** Longest /proc/PID/cgroup nhc reads: a process has one line per v1 hierarchy, a few hundred bytes. */
    private static final int MAX_BYTES = 16 * 1024;
    private static final Pattern V1 = Pattern.compile("/slurm(?:_[^/\\n]+)?/uid_\\d+/job_(\\d{1,10})(?:/|$)", Pattern.MULTILINE);
    private static final Pattern V2 = Pattern.compile("/(?:[^/\\n]+_)?slurmstepd\\.scope/(?:job_(\\d{1,10})|(s[0-9A-Z]{13}))(?:/|$)",
            Pattern.MULTILINE);

    private SlurmCgroup() {
    }

    /** The job of process {@code pid}, when it still runs and runs in a Slurm job's cgroup. */
    static Optional<String> jobOf(ProbeContext ctx, long pid) {
        if (pid <= 0) {
            return Optional.empty();
        }
        Path file = ctx.sys("/proc/" + pid + "/cgroup");
        try {
            byte[] bytes;
            try (var in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_BYTES);
            }
            return job(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty(); // exited (or never was): the XID is still judged, just not attributed
        }
    }

    /** The job a {@code /proc/PID/cgroup} text names: a job id ("4242") or a SLUID ("s5K1KKYAYG5D00"). */
    static Optional<String> job(String cgroups) {
        Matcher v2 = V2.matcher(cgroups);
        if (v2.find()) {
            return Optional.of(v2.group(1) != null ? v2.group(1) : v2.group(2));
        }
        Matcher v1 = V1.matcher(cgroups);
        return v1.find() ? Optional.of(v1.group(1)) : Optional.empty();
    }
}
