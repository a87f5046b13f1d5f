package dev.nhc.slurm;

import dev.nhc.engine.config.ConfigSection;
import dev.nhc.probe.ParamSpec;

import java.time.Duration;
import java.util.List;

/** The config's {@code slurm:} section: how nhc drives Slurm. Every value is checked when the config is loaded. */
public final class SlurmSection implements ConfigSection {
    public static final String KEY = "slurm";

    static final ParamSpec<String> FAILURE_STATE = ParamSpec.choice("failure_state",
            "the Slurm state for fail findings whose check sets no slurm_state", "drain", "fail").defaultValue("drain");
    static final ParamSpec<Long> RESUME_AFTER = ParamSpec.integer("resume_after",
                    "consecutive passing runs before nhc resumes a node it drained itself").defaultValue(1L)
            .check(n -> n < 1 || n > 1000 ? "must be between 1 and 1000 passing runs, not " + n : null);
    static final ParamSpec<Double> MAX_DRAINED_FRACTION = ParamSpec.number("max_drained_fraction",
                    "circuit breaker: never drain a node if more than this share of the nodes would then be drained by nhc").defaultValue(0.5)
            .check(f -> f > 0 && f <= 1 ? null : "must be above 0 and at most 1 (a share of the nodes), not " + f);
    static final ParamSpec<String> PARTITION = ParamSpec.text("partition",
            "count the circuit breaker's nodes in this partition only (default: every node of the cluster)");
    static final ParamSpec<String> SCONTROL = ParamSpec.text("scontrol",
            "path of scontrol (default: /usr/bin, /usr/local/bin, /opt/slurm/bin, then PATH)").check(SlurmSection::absolute)
            .names(ParamSpec.PathUse.RUN);
    static final ParamSpec<String> SINFO = ParamSpec.text("sinfo", "path of sinfo (default: next to scontrol)").check(SlurmSection::absolute)
            .names(ParamSpec.PathUse.RUN);
    static final ParamSpec<String> SLURM_CONF = ParamSpec.text("slurm_conf",
            "slurm.conf for scontrol/sinfo when SLURM_CONF is not set (slurmd passes no environment); default /etc/slurm/slurm.conf")
            .check(SlurmSection::absolute);
    static final ParamSpec<Duration> COMMAND_TIMEOUT = ParamSpec.duration("command_timeout", "time limit of one scontrol/sinfo call")
            .defaultValue(Duration.ofSeconds(5))
            .check(d -> d.isZero() || d.compareTo(Duration.ofSeconds(50)) > 0
                    ? "must be above 0 and at most 50s (slurmd kills the health check at 60 s), not " + d.toMillis() + " ms" : null);
    static final ParamSpec<Long> RETRIES = ParamSpec.integer("retries",
                    "extra attempts of a failed scontrol/sinfo call, always within the run's deadline").defaultValue(2L)
            .check(n -> n < 0 || n > 10 ? "must be between 0 and 10, not " + n : null);
    static final ParamSpec<Duration> PENDING_MAX_AGE = ParamSpec.duration("pending_max_age",
            "a drain that could not reach Slurm is applied on a later run only if it is younger than this").defaultValue(Duration.ofMinutes(30));
    static final ParamSpec<String> REPAIR = ParamSpec.choice("repair",
            "the repair ladder: reboot = ask Slurm to reboot a node (when its jobs end) for a fault latched until reboot whose remedy "
                    + "is a reboot, resume it once the first run on the new boot passes, FAIL it when the fault comes back after "
                    + "max_reboots reboots", "none", "reboot").defaultValue("none");
    static final ParamSpec<Boolean> RESET_GPU_BY_REBOOT = ParamSpec.flag("reset_gpu_by_reboot",
            "the repair ladder: a latched fault whose remedy is a GPU reset gets a reboot (nhc cannot reset a GPU itself)")
            .defaultValue(false);
    static final ParamSpec<Long> MAX_REBOOTS = ParamSpec.integer("max_reboots",
                    "the repair ladder: the same fault back after this many reboots within reboot_window: FAIL, 'replace the part'")
            .defaultValue(2L).check(n -> n < 1 || n > 10 ? "must be between 1 and 10 reboots, not " + n : null);
    static final ParamSpec<Duration> REBOOT_WINDOW = ParamSpec.duration("reboot_window",
            "the repair ladder: how long a reboot counts towards max_reboots").defaultValue(Duration.ofDays(7))
            .check(d -> d.compareTo(Duration.ofMinutes(10)) < 0 ? "must be at least 10m, not " + d.toSeconds() + "s" : null);
    static final ParamSpec<Double> MAX_REBOOTING_FRACTION = ParamSpec.number("max_rebooting_fraction",
                    "circuit breaker: never ask for a reboot if more than this share of the nodes would then be in a reboot nhc asked for")
            .defaultValue(0.1).check(f -> f > 0 && f <= 1 ? null : "must be above 0 and at most 1 (a share of the nodes), not " + f);

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "Slurm mode (nhc run --slurm, bin/nhc-slurm, or nhc daemon): DRAIN/FAIL on fail findings, RESUME what nhc drained";
    }

    @Override
    public List<ParamSpec<?>> params() {
        return List.of(FAILURE_STATE, RESUME_AFTER, MAX_DRAINED_FRACTION, PARTITION, SCONTROL, SINFO, SLURM_CONF, COMMAND_TIMEOUT,
                RETRIES, PENDING_MAX_AGE, REPAIR, RESET_GPU_BY_REBOOT, MAX_REBOOTS, REBOOT_WINDOW, MAX_REBOOTING_FRACTION);
    }

    private static String absolute(String path) {
        return path.startsWith("/") ? null : "must be an absolute path (slurmd gives nhc no PATH), not '" + path + "'";
    }
}
