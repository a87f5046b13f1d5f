package dev.nhc.daemon;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.plan.Plan;
import dev.nhc.probe.Params;

import java.nio.file.Path;

/** The {@code daemon:} section as the daemon uses it. {@code socket} null: no verdict socket. */
public record DaemonSettings(HostPort metricsListen, String token, Path socket) {

    /** Where bin/nhc-slurm looks for the daemon when the config names no socket. */
    public static final Path DEFAULT_SOCKET = Path.of("/run/nhc/nhc.sock");

    public static DaemonSettings of(Plan plan) {
        Params p = plan.config().section(DaemonSection.KEY);
        String socket = DaemonSection.SOCKET.get(p);
        Path s = socket != null ? Path.of(socket) : Ownership.runningAsRoot() ? DEFAULT_SOCKET : null;
        return new DaemonSettings(HostPort.parse(DaemonSection.METRICS_LISTEN.get(p)), DaemonSection.TOKEN.get(p), s);
    }
}
