package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The config's {@code settings:} section. Every key is declared here with its type and default. */
public record Settings(Params values) {

    public static final ParamSpec<Duration> DEADLINE = ParamSpec.duration("deadline",
            "the whole run ends within this; keep it below slurmd's 60 s kill").defaultValue(Duration.ofSeconds(45)).check(Settings::positive);
    public static final ParamSpec<Duration> CHECK_TIMEOUT = ParamSpec.duration("check_timeout",
            "default time limit of one check; a check that takes longer is abandoned").defaultValue(Duration.ofSeconds(10))
            .check(Settings::positive);
    public static final ParamSpec<String> STATE_DIR = ParamSpec.text("state_dir",
            "where state survives between runs (default /var/lib/nhc as root, else $XDG_STATE_HOME/nhc or ~/.local/state/nhc)");
    public static final ParamSpec<String> ON_UNKNOWN = ParamSpec.choice("on_unknown",
            "what a check that could not decide counts as", "ignore", "warn", "fail").defaultValue("ignore");
    public static final ParamSpec<String> ROOT = ParamSpec.text("root",
            "system root under which /proc, /sys, /dev and the filesystems disk.usage measures are read (for tests and containers)").defaultValue("/");
    public static final ParamSpec<Duration> INTERVAL = ParamSpec.duration("interval",
            "nhc daemon: how often a check without 'every:' runs").defaultValue(Duration.ofSeconds(60)).check(Settings::positive);
    public static final ParamSpec<String> NVML_LIBRARY = ParamSpec.text("nvml_library", "path of libnvidia-ml.so.1 (default: the system's)")
            .names(ParamSpec.PathUse.LOAD);
    public static final ParamSpec<String> DCGMI = ParamSpec.text("dcgmi", "path of dcgmi (default: found on PATH, /usr/bin)")
            .names(ParamSpec.PathUse.RUN);
    public static final ParamSpec<String> LOG_FILE = ParamSpec.text("log_file", "also log to this file (as root: in a directory only root can write)")
            .names(ParamSpec.PathUse.APPEND);
    public static final ParamSpec<String> LOG_LEVEL = ParamSpec.choice("log_level", "how much nhc logs",
            "error", "warn", "info", "debug").defaultValue("warn");

    public static final ParamSpec<Boolean> RUN_ACTIONS = ParamSpec.flag("run_actions",
            "let checks run the actions their config gives them (a process check's 'action'); off: nhc only observes").defaultValue(false);

    public static final List<ParamSpec<?>> SPEC = List.of(DEADLINE, CHECK_TIMEOUT, STATE_DIR, ON_UNKNOWN, ROOT, INTERVAL,
            NVML_LIBRARY, DCGMI, LOG_FILE, LOG_LEVEL, RUN_ACTIONS);

    /**
     * A zero limit is a typo, never a wish: a zero deadline or check_timeout abandons every check, and
     * one whose hang means sickness then FAILs (the node drains); a zero interval busy-loops the daemon.
     * (Negative durations are already refused when the text is parsed.)
     */
    private static String positive(Duration d) {
        return d.isZero() || d.isNegative() ? "must be longer than 0" : null;
    }

    public Duration deadline() {
        return DEADLINE.get(values);
    }

    public Duration checkTimeout() {
        return CHECK_TIMEOUT.get(values);
    }

    public OnUnknown onUnknown() {
        return OnUnknown.parse(ON_UNKNOWN.get(values));
    }

    public Path root() {
        return Path.of(ROOT.get(values));
    }

    public Duration interval() {
        return INTERVAL.get(values);
    }

    /** The configured state directory, or the default for the current user. */
    public Path stateDir() {
        String s = STATE_DIR.get(values);
        if (s != null) {
            return Path.of(s);
        }
        if (Ownership.runningAsRoot()) {
            return Path.of("/var/lib/nhc");
        }
        String xdg = System.getenv("XDG_STATE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg, "nhc") : Path.of(System.getProperty("user.home"), ".local", "state", "nhc");
    }

    public <T> T get(ParamSpec<T> key) {
        return key.get(values);
    }

    public Object get(String key) {
        return values.raw(key);
    }

    /** These settings with one value replaced (a command-line override). */
    public Settings with(ParamSpec<?> key, Object value) {
        return new Settings(values.with(key.name(), value));
    }
}
