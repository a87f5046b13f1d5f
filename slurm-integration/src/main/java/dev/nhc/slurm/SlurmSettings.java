package dev.nhc.slurm;

import dev.nhc.engine.model.SlurmState;
import dev.nhc.engine.probe.Params;

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
                            Duration pendingMaxAge) {

    static final List<String> BIN_DIRS = List.of("/usr/bin", "/usr/local/bin", "/opt/slurm/bin");
    static final Path DEFAULT_CONF = Path.of("/etc/slurm/slurm.conf");

    /**
     * @param env the process environment (a parameter so tests need not change the JVM's)
     * @throws IllegalArgumentException with a message naming the key when a value is out of range
     */
    public static SlurmSettings from(Params p, Map<String, String> env) {
        SlurmState failureState = SlurmState.parse(p.has("failure_state") ? p.string("failure_state") : "drain");
        long resumeAfter = p.has("resume_after") ? p.integer("resume_after") : 1;
        if (resumeAfter < 1 || resumeAfter > 1000) {
            throw new IllegalArgumentException("slurm resume_after must be between 1 and 1000, not " + resumeAfter);
        }
        double fraction = p.has("max_drained_fraction") ? p.number("max_drained_fraction") : 0.5;
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("slurm max_drained_fraction must be above 0 and at most 1, not " + fraction);
        }
        long retries = p.has("retries") ? p.integer("retries") : 2;
        if (retries < 0 || retries > 10) {
            throw new IllegalArgumentException("slurm retries must be between 0 and 10, not " + retries);
        }
        Duration timeout = p.has("command_timeout") ? p.duration("command_timeout") : Duration.ofSeconds(5);
        Duration pendingMaxAge = p.has("pending_max_age") ? p.duration("pending_max_age") : Duration.ofMinutes(30);
        Path scontrol = locate(p.string("scontrol"), "scontrol", env);
        Path sinfo = p.has("sinfo") ? Path.of(p.string("sinfo")) : scontrol.resolveSibling("sinfo");
        return new SlurmSettings(failureState, (int) resumeAfter, fraction, p.string("partition"), scontrol, sinfo,
                slurmConf(p.string("slurm_conf"), env), timeout, (int) retries, pendingMaxAge);
    }

    /** The configured path, else the usual install directories, else PATH; a missing one is reported when first run. */
    static Path locate(String configured, String program, Map<String, String> env) {
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        List<String> dirs = new ArrayList<>(BIN_DIRS);
        String path = env.get("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(":")));
        }
        for (String dir : dirs) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return Path.of(BIN_DIRS.get(0), program);
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
