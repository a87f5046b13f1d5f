package dev.nhc.cli;

import dev.nhc.checks.gpu.amd.AmdGpuEvents;
import dev.nhc.checks.gpu.xid.NvmlXidEvents;
import dev.nhc.cli.logging.Logging;
import dev.nhc.daemon.Daemon;
import dev.nhc.daemon.DaemonPlugin;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.plan.SiteJars;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

@Command(name = "daemon", sortOptions = false,
        description = {"Run the checks continuously, each on its schedule, and serve the verdict.",
                "",
                "Each check runs every 'every:' (default settings.interval) on its own, so a slow check never delays "
                        + "the others. The latest verdict is kept in memory and in settings.state_dir and served on "
                        + "daemon.metrics_listen (default 127.0.0.1:9464): GET /healthz, GET /v1/verdict (the JSON of "
                        + "'nhc run --json'), GET /metrics (Prometheus); and, as root, on the socket /run/nhc/nhc.sock "
                        + "that bin/nhc-slurm asks instead of starting a run of its own.",
                "",
                "With a 'slurm:' section the daemon drains (or fails) and resumes the node itself the moment its verdict "
                        + "changes. With a 'dstack:' section it runs the shim health proxy on dstack.listen (default "
                        + "127.0.0.1:10998) in front of dstack-shim on dstack.shim (default 127.0.0.1:11998), so that dstack "
                        + "sees nhc's verdict as the host's health.",
                "",
                "A critical XID reported by NVML, a GPU event reported by AMD SMI (a reset), or new kernel log lines, re-run the GPU and kernel-log checks at once "
                        + "instead of at the next interval. The daemon holds the node's run lock: a one-shot 'nhc run' "
                        + "started meanwhile steps aside.",
                "",
                "SIGHUP reloads the config (an invalid one is reported and the running one kept); SIGTERM stops."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc daemon -c /etc/nhc/nhc.yaml        as the systemd unit nhc-daemon.service runs it",
                "  curl -s localhost:9464/v1/verdict | jq .severity",
                "  systemctl reload nhc-daemon             re-read the config"})
final class DaemonCommand implements Callable<Integer> {

    @Mixin
    ConfigOption config = new ConfigOption();

    @Mixin
    Overrides overrides = new Overrides();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        String refused = overrides.refusal();
        if (refused != null) {
            System.err.println("nhc daemon: " + refused);
            return ExitCodes.INVALID;
        }
        ConfigLoader loader = Wiring.loader();
        String node = NodeName.resolve(overrides.hostname, false);
        AtomicBoolean logging = new AtomicBoolean();
        Daemon.PlanSource source = () -> {
            Plan plan = overrides.apply(loader.load(config.file()));
            if (logging.compareAndSet(false, true)) {
                Logging.apply(plan.settings());
            }
            return plan;
        };
        List<DaemonPlugin> plugins = new ArrayList<>();
        ServiceLoader.load(DaemonPlugin.class, SiteJars.loader()).forEach(plugins::add);
        NvmlXidEvents xids = new NvmlXidEvents();
        AmdGpuEvents amdEvents = new AmdGpuEvents();
        if (InheritedHangup.takeBack()) {
            System.err.println("nhc daemon: SIGHUP was ignored by whoever started nhc (nohup?); it reloads the config all the same");
        }
        return Daemon.run(source, SeverityPolicy.STANDARD, node, NodeName.fullName(overrides.hostname), System.err,
                Map.of(NvmlXidEvents.class, xids, AmdGpuEvents.class, amdEvents), plugins,
                List.of(new NvmlXidTrigger(xids, Clock.systemUTC()), new AmdSmiEventTrigger(amdEvents, Clock.systemUTC()), new KernelLogTrigger()));
    }
}
