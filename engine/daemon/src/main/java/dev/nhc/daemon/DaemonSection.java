package dev.nhc.daemon;

import dev.nhc.engine.config.ConfigSection;
import dev.nhc.probe.ParamSpec;

import java.util.List;

/** The config's {@code daemon:} section: where {@code nhc daemon} serves its verdict. */
public final class DaemonSection implements ConfigSection {
    public static final String KEY = "daemon";

    public static final ParamSpec<String> METRICS_LISTEN = ParamSpec.text("metrics_listen",
            "address of /healthz, /v1/verdict and /metrics").defaultValue("127.0.0.1:9464").check(HostPort::problem);
    public static final ParamSpec<String> TOKEN = ParamSpec.text("token",
            "bearer token required by mutating endpoints (POST /v1/recheck); without it they are disabled");
    public static final ParamSpec<String> SOCKET = ParamSpec.text("socket",
            "root-only UNIX socket where bin/nhc-slurm asks for the verdict (default /run/nhc/nhc.sock as root; none otherwise)")
            .check(p -> p.startsWith("/") ? null : "must be an absolute path, not '" + p + "'");

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "nhc daemon: the verdict, health and metrics endpoints, and the socket bin/nhc-slurm asks";
    }

    @Override
    public List<ParamSpec<?>> params() {
        return List.of(METRICS_LISTEN, TOKEN, SOCKET);
    }
}
