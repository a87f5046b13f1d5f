package dev.nhc.checks.dcgm;

import dev.nhc.probe.ProbeContext;
import dev.nhc.engine.files.CurrentProcess;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether the GPUs are in use right now, so that an intrusive {@code dcgmi diag} waits: any
 * process with a GPU device open ({@code /proc/PID/fd} links to {@code /dev/nvidiaN} or
 * {@code /dev/nvidia-uvm}, the way {@code fuser} sees it), or a Slurm job on the node (a
 * {@code job_*} cgroup slurmd made, cgroup v2 or v1). Local files only: no squeue, so no
 * dependency on slurmctld being reachable.
 */
final class GpuActivity {
    /** GPU daemons that hold the devices all the time and do not make the GPUs busy. */
    static final Set<String> DAEMONS = Set.of("nv-hostengine", "nvidia-persistenced", "nvidia-persiste", "dcgm-exporter",
            "nv-fabricmanager", "nvidia-fabricmanager", "nvidia-smi", "nvidia-powerd", "nvidia-dcgm");
    private static final Pattern GPU_DEVICE = Pattern.compile("/dev/nvidia([0-9]+|-uvm)$");
    private static final List<String> SLURM_CGROUPS = List.of(
            "/sys/fs/cgroup/system.slice/slurmstepd.scope",   // cgroup v2
            "/sys/fs/cgroup/slurm",                           // v2 with a custom root
            "/sys/fs/cgroup/memory/slurm",                    // cgroup v1
            "/sys/fs/cgroup/devices/slurm",
            "/sys/fs/cgroup/cpuset/slurm",
            "/sys/fs/cgroup/freezer/slurm");

    private GpuActivity() {
    }

    /** Why the GPUs are busy ("pid 4242 (python) has /dev/nvidia0 open", "Slurm job 1234"), or null when idle. */
    static String busy(ProbeContext ctx, Set<String> ignoredNames) throws IOException {
        String job = slurmJob(ctx);
        if (job != null) {
            return job;
        }
        return gpuProcess(ctx, ignoredNames);
    }

    static String slurmJob(ProbeContext ctx) {
        for (String base : SLURM_CGROUPS) {
            Path dir = ctx.sys(base);
            String job = findJob(dir, 0);
            if (job != null) {
                return "Slurm job " + job + " holds the node (" + base + ")";
            }
        }
        return null;
    }

    private static String findJob(Path dir, int depth) {
        if (depth > 2 || !Files.isDirectory(dir)) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (name.startsWith("job_") && Files.isDirectory(p)) {
                    return name.substring(4);
                }
                if (name.startsWith("uid_") && Files.isDirectory(p)) {
                    String job = findJob(p, depth + 1);
                    if (job != null) {
                        return job;
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    static String gpuProcess(ProbeContext ctx, Set<String> ignoredNames) throws IOException {
        Path proc = ctx.sys("/proc");
        long self = CurrentProcess.pid();
        List<Path> pids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc, "[0-9]*")) {
            ds.forEach(pids::add);
        } catch (IOException e) {
            throw new IOException("cannot list " + proc + " to look for GPU processes: " + e.getMessage(), e);
        }
        for (Path pidDir : pids) {
            String pid = pidDir.getFileName().toString();
            if (pid.equals(Long.toString(self))) {
                continue; // nhc's own NVML probes hold the devices while they run
            }
            String device = openGpuDevice(pidDir.resolve("fd"));
            if (device == null) {
                continue;
            }
            String comm = comm(pidDir);
            if (ignoredNames.contains(comm)) {
                continue;
            }
            return "pid " + pid + " (" + comm + ") has " + device + " open";
        }
        return null;
    }

    private static String openGpuDevice(Path fdDir) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(fdDir)) {
            for (Path fd : ds) {
                Path target;
                try {
                    target = Files.readSymbolicLink(fd);
                } catch (IOException | UnsupportedOperationException e) {
                    continue;
                }
                String t = target.toString();
                if (GPU_DEVICE.matcher(t).find()) {
                    return t;
                }
            }
        } catch (IOException e) {
            return null; // exited, or a kernel thread without fds
        }
        return null;
    }

    private static String comm(Path pidDir) {
        try {
            return Files.readString(pidDir.resolve("comm")).strip();
        } catch (IOException e) {
            return "?";
        }
    }
}
