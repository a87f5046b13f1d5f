package dev.nhc.cli;

import dev.nhc.cli.logging.Logging;
import dev.nhc.dstack.Daemon;
import dev.nhc.dstack.EngineCheckRunner;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.run.Runner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

@Command(name = "daemon", sortOptions = false,
        description = {"Run the checks continuously, each on its schedule, and serve the verdict.",
                "",
                "Each check runs every 'every:' (default settings.interval) on its own, so a slow check never delays "
                        + "the others. The latest verdict is kept in memory and in settings.state_dir and served on "
                        + "dstack.metrics_listen (default 127.0.0.1:9464): GET /healthz, GET /v1/verdict (the JSON of "
                        + "'nhc run --json'), GET /metrics (Prometheus). With a 'dstack:' section it also runs the shim "
                        + "health proxy on dstack.listen (default 127.0.0.1:10998) in front of dstack-shim on dstack.shim "
                        + "(default 127.0.0.1:11998), so that dstack sees nhc's verdict as the host's health.",
                "",
                "With GPU checks, a critical XID reported by NVML re-runs them at once instead of at the next interval.",
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
        ConfigLoader loader = ConfigLoader.standard();
        String node = NodeName.resolve(overrides.hostname, false);
        AtomicBoolean logging = new AtomicBoolean();
        Daemon.ConfigSource source = () -> {
            Config cfg = overrides.apply(loader.load(config.file()));
            if (logging.compareAndSet(false, true)) {
                Logging.apply(cfg.settings());
            }
            return cfg;
        };
        Runner runner = new Runner(loader.registry(), loader.evaluator(), Clock.systemUTC());
        return Daemon.run(source, new EngineCheckRunner(runner, node, Map.of()), node, System.err, List.of(new NvmlXidTrigger()));
    }
}
