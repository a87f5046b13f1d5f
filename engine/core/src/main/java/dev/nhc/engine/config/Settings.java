package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The config's {@code settings:} section. Every key is declared in {@link #SPEC} with its type and default. */
public record Settings(Params values) {

    public static final List<ParamSpec> SPEC = List.of(
            ParamSpec.optional("deadline", ParamType.DURATION, Duration.ofSeconds(45),
                    "the whole run ends within this; keep it below slurmd's 60 s kill"),
            ParamSpec.optional("check_timeout", ParamType.DURATION, Duration.ofSeconds(10),
                    "default time limit of one check; a check that takes longer is abandoned"),
            ParamSpec.optional("state_dir", ParamType.STRING, null,
                    "where state survives between runs (default /var/lib/nhc as root, else ~/.local/state/nhc)"),
            ParamSpec.optional("on_unknown", ParamType.STRING, "ignore",
                    "what a check that could not decide counts as: ignore, warn or fail"),
            ParamSpec.optional("root", ParamType.STRING, "/",
                    "system root under which /proc, /sys and /dev are read (for tests and containers)"),
            ParamSpec.optional("interval", ParamType.DURATION, Duration.ofSeconds(60),
                    "nhc daemon: how often a check without 'every:' runs"),
            ParamSpec.optional("nvml_library", ParamType.STRING, null,
                    "path of libnvidia-ml.so.1 (default: the system's)"),
            ParamSpec.optional("dcgmi", ParamType.STRING, null, "path of dcgmi (default: found on PATH, /usr/bin)"),
            ParamSpec.optional("log_file", ParamType.STRING, null, "also log to this file (Slurm mode logs to syslog-like files)"),
            ParamSpec.optional("log_level", ParamType.STRING, "warn", "error, warn, info or debug")
    );

    public Duration deadline() {
        return values.duration("deadline");
    }

    public Duration checkTimeout() {
        return values.duration("check_timeout");
    }

    public OnUnknown onUnknown() {
        return OnUnknown.parse(values.string("on_unknown"));
    }

    public Path root() {
        return Path.of(values.string("root"));
    }

    public Duration interval() {
        return values.duration("interval");
    }

    /** The configured state directory, or the default for the current user. */
    public Path stateDir() {
        String s = values.string("state_dir");
        if (s != null) {
            return Path.of(s);
        }
        if ("root".equals(System.getProperty("user.name"))) {
            return Path.of("/var/lib/nhc");
        }
        String xdg = System.getenv("XDG_STATE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg, "nhc") : Path.of(System.getProperty("user.home"), ".local", "state", "nhc");
    }

    public Object get(String key) {
        return values.raw(key);
    }
}
