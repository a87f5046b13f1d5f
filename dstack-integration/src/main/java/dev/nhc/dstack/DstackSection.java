package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.probe.ParamSpec;

import java.time.Duration;
import java.util.List;

/** The config's {@code dstack:} section: the shim health proxy of {@code nhc daemon}, and dstack's labels on its metrics. */
public final class DstackSection implements ConfigSection {

    public static final String KEY = "dstack";

    static final ParamSpec<String> LISTEN = ParamSpec.text("listen",
                    "address of the shim health proxy; dstack's server reaches the shim here through its SSH tunnel")
            .defaultValue("127.0.0.1:10998").check(HostPort::problem);
    static final ParamSpec<String> SHIM = ParamSpec.text("shim",
                    "address of the real dstack-shim (moved there by the fleet's env DSTACK_SHIM_HTTP_PORT=11998)")
            .defaultValue("127.0.0.1:11998").check(HostPort::problem);
    static final ParamSpec<Boolean> PROXY = ParamSpec.flag("proxy",
            "run the shim health proxy (false: only the daemon's own endpoints)").defaultValue(true);
    static final ParamSpec<String> PROJECT = ParamSpec.text("project", "dstack project name, added to metrics as dstack_project_name");
    static final ParamSpec<String> FLEET = ParamSpec.text("fleet", "dstack fleet name, added to metrics as dstack_fleet_name");
    static final ParamSpec<String> INSTANCE = ParamSpec.text("instance", "dstack instance name, added to metrics as dstack_instance_name");
    static final ParamSpec<Long> PROXY_THREADS = ParamSpec.integer("proxy_threads",
                    "pass-through worker threads (the health route needs none); requests beyond these wait in a bounded queue, past it 503").defaultValue(16L)
            .check(n -> n < 1 || n > 1024 ? n + " is outside 1..1024" : null);
    static final ParamSpec<Duration> SHIM_TIMEOUT = ParamSpec.duration("shim_timeout",
                    "how long the health route waits for the shim; dstack gives the whole answer 9 s").defaultValue(Duration.ofSeconds(5))
            .check(d -> d.isZero() || d.isNegative() ? "must be more than 0 (the shim's health answer is waited for this long)"
                    : d.compareTo(Duration.ofSeconds(8)) > 0
                    ? d.toSeconds() + "s leaves no time for nhc's answer inside dstack's 9 s budget; use 8s or less" : null);
    /** Moved to the daemon's own section when the daemon became the core for Slurm sites too. */
    static final ParamSpec<String> METRICS_LISTEN = moved("metrics_listen", false);
    /** A secret: the error never repeats its value (errors end up in logs and terminals). */
    static final ParamSpec<String> TOKEN = moved("token", true);

    static final List<ParamSpec<?>> PARAMS = List.of(LISTEN, SHIM, PROXY, PROJECT, FLEET, INSTANCE, PROXY_THREADS, SHIM_TIMEOUT,
            METRICS_LISTEN, TOKEN);

    private static ParamSpec<String> moved(String key, boolean secret) {
        return ParamSpec.text(key, "moved: write it as daemon." + key).check(v -> "moved to the daemon's section: write 'daemon:' with '"
                + key + ": " + (secret ? "<the same value>" : v) + "' (nhc 0.2)");
    }

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "dstack SSH-fleet integration of nhc daemon: the shim health proxy and dstack's labels on metrics";
    }

    @Override
    public List<ParamSpec<?>> params() {
        return PARAMS;
    }
}
