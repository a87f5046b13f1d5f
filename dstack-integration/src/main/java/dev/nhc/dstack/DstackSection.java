package dev.nhc.dstack;

import dev.nhc.engine.config.ConfigSection;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;

import java.util.List;

/** The config's {@code dstack:} section: where the daemon listens, where the real shim moved to, and metric labels. */
public final class DstackSection implements ConfigSection {

    public static final String KEY = "dstack";

    public static final List<ParamSpec> PARAMS = List.of(
            ParamSpec.optional("listen", ParamType.STRING, "127.0.0.1:10998",
                    "address of the shim health proxy; dstack's server reaches the shim here through its SSH tunnel"),
            ParamSpec.optional("shim", ParamType.STRING, "127.0.0.1:11998",
                    "address of the real dstack-shim (moved there by the fleet's env DSTACK_SHIM_HTTP_PORT=11998)"),
            ParamSpec.optional("proxy", ParamType.BOOLEAN, true,
                    "run the shim health proxy (false: only /healthz, /v1/verdict and /metrics)"),
            ParamSpec.optional("metrics_listen", ParamType.STRING, "127.0.0.1:9464",
                    "address of /healthz, /v1/verdict and /metrics"),
            ParamSpec.optional("project", ParamType.STRING, null, "dstack project name, added to metrics as dstack_project_name"),
            ParamSpec.optional("fleet", ParamType.STRING, null, "dstack fleet name, added to metrics as dstack_fleet_name"),
            ParamSpec.optional("instance", ParamType.STRING, null, "dstack instance name, added to metrics as dstack_instance_name"),
            ParamSpec.optional("token", ParamType.STRING, null,
                    "bearer token required by mutating endpoints (POST /v1/recheck); without it they are disabled"),
            ParamSpec.optional("proxy_threads", ParamType.INTEGER, 16L,
                    "proxy worker threads; requests beyond these wait in a bounded queue"),
            ParamSpec.optional("shim_timeout", ParamType.DURATION, java.time.Duration.ofSeconds(5),
                    "how long the health route waits for the shim; dstack gives the whole answer 9 s")
    );

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "dstack SSH-fleet integration of nhc daemon: shim health proxy, verdict and metrics endpoints";
    }

    @Override
    public List<ParamSpec> params() {
        return PARAMS;
    }
}
