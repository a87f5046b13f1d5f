package dev.nhc.slurm;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.Params;
import dev.nhc.slurm.repair.RepairSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code slurm:} section, validated, with the client programs and slurm.conf located. slurmd
 * runs the health check with an empty environment, so nothing here may rely on PATH or SLURM_CONF.
 */
public record SlurmSettings(SlurmState failureState, int resumeAfter, double maxDrainedFraction, String partition,
                            Path scontrol, Path sinfo, Path slurmConf, Duration commandTimeout, int retries,
                            Duration pendingMaxAge, RepairSettings repair) {

    static final List<String> BIN_DIRS = List.of("/usr/bin", "/usr/local/bin", "/opt/slurm/bin");
    static final Path DEFAULT_CONF = Path.of("/etc/slurm/slurm.conf");

    /**
     * @param p   the section as loaded (every value already checked against {@link SlurmSection}'s specs)
     * @param env the process environment (a parameter so tests need not change the JVM's)
     */
    public static SlurmSettings from(Params p, Map<String, String> env) {
        return from(p, env, Ownership.runningAsRoot());
    }

    static SlurmSettings from(Params p, Map<String, String> env, boolean rootOnly) {
        Path scontrol = locate(SlurmSection.SCONTROL.get(p), "scontrol", env, rootOnly);
        String sinfo = SlurmSection.SINFO.get(p);
        return new SlurmSettings(SlurmState.parse(SlurmSection.FAILURE_STATE.get(p)), SlurmSection.RESUME_AFTER.get(p).intValue(),
                SlurmSection.MAX_DRAINED_FRACTION.get(p), SlurmSection.PARTITION.get(p), scontrol,
                sinfo != null ? Path.of(sinfo) : scontrol.resolveSibling("sinfo"), slurmConf(SlurmSection.SLURM_CONF.get(p), env),
                SlurmSection.COMMAND_TIMEOUT.get(p), SlurmSection.RETRIES.get(p).intValue(), SlurmSection.PENDING_MAX_AGE.get(p),
                new RepairSettings("reboot".equals(SlurmSection.REPAIR.get(p)), SlurmSection.RESET_GPU_BY_REBOOT.get(p),
                        SlurmSection.MAX_REBOOTS.get(p).intValue(), SlurmSection.REBOOT_WINDOW.get(p), SlurmSection.MAX_REBOOTING_FRACTION.get(p)));
    }

    /**
     * The configured path, else the first of the usual install directories, then PATH's absolute
     * directories, that holds the program, and as root one that only root can change
     * ({@link TrustedCommand#check}): a copy someone else could have put in one of those
     * directories is passed over rather than run as root. When every copy found is such a copy,
     * the first is returned and the run refuses it, saying why; a missing one is reported when
     * first run.
     */
    static Path locate(String configured, String program, Map<String, String> env, boolean rootOnly) {
        return locate(configured, program, env, rootOnly, BIN_DIRS);
    }

    /** {@link #locate(String, String, Map, boolean)} with the install directories to try before PATH (tests: none). */
    static Path locate(String configured, String program, Map<String, String> env, boolean rootOnly, List<String> installDirs) {
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        List<String> dirs = new ArrayList<>(installDirs);
        String path = env.get("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(":")));
        }
        Path refused = null;
        for (String dir : dirs) {
            if (!dir.startsWith("/")) {
                continue; // a relative PATH entry would be relative to wherever nhc was started
            }
            Path candidate = Path.of(dir, program);
            if (!Files.isExecutable(candidate)) {
                continue;
            }
            if (!rootOnly) {
                return candidate;
            }
            try {
                TrustedCommand.check(List.of(candidate.toString()));
                return candidate;
            } catch (IOException e) {
                refused = refused == null ? candidate : refused;
            }
        }
        return refused != null ? refused : Path.of(BIN_DIRS.get(0), program);
    }

    /**
     * SLURM_CONF from the environment wins (an admin running nhc by hand means it), then the config's
     * slurm_conf (the only source under slurmd), then Slurm's own default; null lets scontrol decide.
     */
    static Path slurmConf(String configured, Map<String, String> env) {
        String fromEnv = env.get("SLURM_CONF");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Path.of(fromEnv);
        }
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        return Files.exists(DEFAULT_CONF) ? DEFAULT_CONF : null;
    }
}
