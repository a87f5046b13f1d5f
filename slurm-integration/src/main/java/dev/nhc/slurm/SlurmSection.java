package dev.nhc.slurm;

import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.Problems;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;

import java.time.Duration;
import java.util.List;

/** The config's {@code slurm:} section: how nhc drives Slurm when it runs as HealthCheckProgram. */
public final class SlurmSection implements ConfigSection {
    public static final String KEY = "slurm";

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "Slurm mode (nhc run --slurm, bin/nhc-slurm): DRAIN/FAIL on fail findings, RESUME what nhc drained";
    }

    @Override
    public List<ParamSpec> params() {
        return List.of(
                ParamSpec.optional("failure_state", ParamType.STRING, "drain",
                        "drain or fail: the Slurm state for fail findings whose check sets no slurm_state"),
                ParamSpec.optional("resume_after", ParamType.INTEGER, 1L,
                        "consecutive passing runs before nhc resumes a node it drained itself"),
                ParamSpec.optional("max_drained_fraction", ParamType.NUMBER, 0.5,
                        "circuit breaker: never drain a node if more than this share of the nodes would then be drained by nhc"),
                ParamSpec.optional("partition", ParamType.STRING, null,
                        "count the circuit breaker's nodes in this partition only (default: every node of the cluster)"),
                ParamSpec.optional("scontrol", ParamType.STRING, null,
                        "path of scontrol (default: /usr/bin, /usr/local/bin, /opt/slurm/bin, then PATH)"),
                ParamSpec.optional("sinfo", ParamType.STRING, null,
                        "path of sinfo (default: next to scontrol)"),
                ParamSpec.optional("slurm_conf", ParamType.STRING, null,
                        "slurm.conf for scontrol/sinfo when SLURM_CONF is not set (slurmd passes no environment); default /etc/slurm/slurm.conf"),
                ParamSpec.optional("command_timeout", ParamType.DURATION, Duration.ofSeconds(5),
                        "time limit of one scontrol/sinfo call"),
                ParamSpec.optional("retries", ParamType.INTEGER, 2L,
                        "extra attempts of a failed scontrol/sinfo call, always within the run's deadline"),
                ParamSpec.optional("pending_max_age", ParamType.DURATION, Duration.ofMinutes(30),
                        "a drain that could not reach Slurm is applied on a later run only if it is younger than this"));
    }

    @Override
    public void validate(Params values, ConfigNode node, Problems problems) {
        // Defaults are always valid, so a problem means the key was written and node is its map.
        SlurmSettings.invalid(values).forEach((key, why) -> {
            ConfigNode at = node == null || !node.isMap() ? null : node.get(key);
            problems.add(at != null ? at.location() : node.location(), "slurm " + key + ": " + why);
        });
    }
}
