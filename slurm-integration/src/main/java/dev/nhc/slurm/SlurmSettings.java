package dev.nhc.slurm;

import dev.nhc.model.SlurmState;
import dev.nhc.probe.Params;

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
        Map<String, String> invalid = invalid(p);
        if (!invalid.isEmpty()) {
            Map.Entry<String, String> first = invalid.entrySet().iterator().next();
            throw new IllegalArgumentException("slurm " + first.getKey() + ": " + first.getValue());
        }
        SlurmState failureState = SlurmState.parse(p.has("failure_state") ? p.string("failure_state") : "drain");
        long resumeAfter = p.has("resume_after") ? p.integer("resume_after") : 1;
        double fraction = p.has("max_drained_fraction") ? p.number("max_drained_fraction") : 0.5;
        long retries = p.has("retries") ? p.integer("retries") : 2;
        Duration timeout = p.has("command_timeout") ? p.duration("command_timeout") : Duration.ofSeconds(5);
        Duration pendingMaxAge = p.has("pending_max_age") ? p.duration("pending_max_age") : Duration.ofMinutes(30);
        Path scontrol = locate(p.string("scontrol"), "scontrol", env);
        Path sinfo = p.has("sinfo") ? Path.of(p.string("sinfo")) : scontrol.resolveSibling("sinfo");
        return new SlurmSettings(failureState, (int) resumeAfter, fraction, p.string("partition"), scontrol, sinfo,
                slurmConf(p.string("slurm_conf"), env), timeout, (int) retries, pendingMaxAge);
    }

    /** Each key whose value is of the right type but out of range, with why; empty when all are fine. */
    static Map<String, String> invalid(Params p) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        if (p.has("failure_state")) {
            try {
                SlurmState.parse(p.string("failure_state"));
            } catch (IllegalArgumentException e) {
                out.put("failure_state", "must be drain or fail, not '" + p.string("failure_state") + "'");
            }
        }
        if (p.has("resume_after") && (p.integer("resume_after") < 1 || p.integer("resume_after") > 1000)) {
            out.put("resume_after", "must be between 1 and 1000 passing runs, not " + p.integer("resume_after"));
        }
        if (p.has("max_drained_fraction") && !(p.number("max_drained_fraction") > 0 && p.number("max_drained_fraction") <= 1)) {
            out.put("max_drained_fraction", "must be above 0 and at most 1 (a share of the nodes), not " + p.number("max_drained_fraction"));
        }
        if (p.has("retries") && (p.integer("retries") < 0 || p.integer("retries") > 10)) {
            out.put("retries", "must be between 0 and 10, not " + p.integer("retries"));
        }
        if (p.has("command_timeout") && (p.duration("command_timeout").isZero() || p.duration("command_timeout").compareTo(Duration.ofSeconds(50)) > 0)) {
            out.put("command_timeout", "must be above 0 and at most 50s (slurmd kills the health check at 60 s), not "
                    + p.duration("command_timeout").toMillis() + " ms");
        }
        for (String key : List.of("scontrol", "sinfo", "slurm_conf")) {
            if (p.has(key) && !p.string(key).startsWith("/")) {
                out.put(key, "must be an absolute path (slurmd gives nhc no PATH), not '" + p.string(key) + "'");
            }
        }
        return out;
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
