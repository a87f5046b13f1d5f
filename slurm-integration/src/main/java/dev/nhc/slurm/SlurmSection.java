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
                RETRIES, PENDING_MAX_AGE);
    }

    private static String absolute(String path) {
        return path.startsWith("/") ? null : "must be an absolute path (slurmd gives nhc no PATH), not '" + path + "'";
    }
}
