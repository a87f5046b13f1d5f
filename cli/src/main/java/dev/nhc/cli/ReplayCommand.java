package dev.nhc.cli;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.dcgm.DcgmiOutputs;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.CaptureParseException;
import dev.nhc.checks.gpu.capture.GpuCapture;
import dev.nhc.checks.gpu.capture.NvidiaSmiQParser;
import dev.nhc.checks.gpu.xid.PciToGpu;
import dev.nhc.checks.gpu.xid.XidEvent;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Params;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.TextReport;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.run.Runner;
import dev.nhc.engine.state.StateStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "replay", sortOptions = false,
        description = {"Judge captured GPU output with the config's rules instead of the live GPUs.",
                "",
                "For triage of what a user attached to a ticket: the same rules, report and exit codes as "
                        + "'nhc run', applied to an 'nvidia-smi -q' capture (whole or a -d subset such as "
                        + "PAGE_RETIREMENT) and/or an 'nvidia-smi nvlink --status' capture of the same node. "
                        + "Checks whose data the captures do not hold are listed as skipped and do not count. "
                        + "A capture that cannot be read is an error that names the line, never a pass. "
                        + "Nothing on this machine is read or changed: no NVML, no state directory, no Slurm."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc replay -c /etc/nhc/nhc.yaml --nvidia-smi-q ticket-4711.txt",
                "  nhc replay -c nhc.yaml --nvidia-smi-q smi-q.txt --nvidia-smi-q nvlink-status.txt --json"})
final class ReplayCommand implements Callable<Integer> {

    /** The probes each kind of capture can feed. */
    static final Set<String> NVIDIA_SMI = Set.of("gpu.inventory", "gpu.ecc", "gpu.memory-repair", "gpu.pcie", "gpu.nvlink",
            "gpu.thermal", "gpu.power");
    static final Set<String> KERNEL_LOG = Set.of("gpu.xid", "kernel.log");

    @Mixin
    ConfigOption config = new ConfigOption();

    @Option(names = "--nvidia-smi-q", arity = "1", paramLabel = "FILE",
            description = "An 'nvidia-smi -q' or 'nvidia-smi nvlink --status' capture; repeat to combine captures of one node.")
    List<Path> captures = new ArrayList<>();

    @Option(names = "--kernel-log", paramLabel = "FILE",
            description = "A kernel log (dmesg, journalctl -k, /var/log/kern.log) for gpu.xid and kernel.log checks; read whole.")
    Path kernelLog;

    @Option(names = "--dcgmi-health-json", paramLabel = "FILE", description = "Output of 'dcgmi health -c -j' for dcgm.health checks.")
    Path dcgmiHealth;

    @Option(names = "--dcgmi-diag-json", paramLabel = "FILE", description = "Output of 'dcgmi diag -r N -j' (or its text table) for dcgm.diag checks.")
    Path dcgmiDiag;

    @Option(names = {"-v", "--verbose"}, description = "Print one line per check, then every finding with what was observed.")
    boolean verbose;

    @Option(names = "--json", description = "Print exactly one JSON object, as 'nhc run --json' does.")
    boolean json;

    @Option(names = "--hostname", paramLabel = "NAME",
            description = "Judge as this host (checks with 'on:' apply as they would there); default: every check applies.")
    String hostname;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        ConfigLoader loader = ConfigLoader.standard();
        Config cfg = config.load(loader, System.err);
        if (cfg == null) {
            return ExitCodes.INVALID;
        }
        if (captures.isEmpty() && kernelLog == null && dcgmiHealth == null && dcgmiDiag == null) {
            System.err.println("nhc: replay needs at least one capture: --nvidia-smi-q, --kernel-log, --dcgmi-health-json or --dcgmi-diag-json");
            return ExitCodes.INVALID;
        }
        DcgmiOutputs dcgmi = null;
        if (dcgmiHealth != null || dcgmiDiag != null) {
            try {
                dcgmi = DcgmiOutputs.read(dcgmiHealth, dcgmiDiag);
            } catch (IOException e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        GpuCapture capture = null;
        for (Path file : captures) {
            GpuCapture c;
            try {
                c = NvidiaSmiQParser.parse(file);
            } catch (CaptureFile.Refused e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (IOException e) {
                System.err.println("nhc: cannot read " + file + ": " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (CaptureParseException e) {
                for (String p : e.problems()) {
                    System.err.println(file + ": " + p);
                }
                System.err.println("nhc: " + file + " is not a readable nvidia-smi capture; nothing was judged");
                return ExitCodes.INVALID;
            }
            try {
                capture = capture == null ? c : capture.merge(c);
            } catch (CaptureParseException e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        Path scratch = null;
        try {
            // Rates and for: N need history a capture does not have: a throw-away state, never the node's.
            scratch = Files.createTempDirectory("nhc-replay");
        } catch (IOException e) {
            System.err.println("nhc: cannot create a scratch directory for the replay: " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        try {
            return judge(cfg, loader, capture, dcgmi, scratch);
        } finally {
            deleteQuietly(scratch);
        }
    }

    private Integer judge(Config cfg, ConfigLoader loader, GpuCapture capture, DcgmiOutputs dcgmi, Path scratch) {
        Path log = null;
        if (kernelLog != null) {
            try {
                log = CaptureFile.kernelLog(kernelLog, scratch);
            } catch (IOException e) {
                System.err.println("nhc: " + (e instanceof CaptureFile.Refused ? "" : "cannot read " + kernelLog + ": ")
                        + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        String node = hostname != null ? hostname : "replay";

        // The captured node's checks, as if on that node: host selectors only when --hostname says which node it was.
        List<CheckConfig> checks = new ArrayList<>();
        Set<String> replayable = new LinkedHashSet<>();
        for (CheckConfig c : cfg.checks()) {
            Params with = c.with();
            if (kernelLog != null && KERNEL_LOG.contains(c.use())) {
                // The capture replaces the check's log source; its lines belong to another boot.
                Map<String, Object> w = new LinkedHashMap<>(with.asMap());
                w.put("log", log.toAbsolutePath().toString());
                w.put("since_boot", false);
                with = new Params(w);
            }
            CheckConfig judged = new CheckConfig(c.name(), c.use(), c.location(), hostname != null ? c.on() : HostSelector.all(), with,
                    c.warn(), c.fail(), c.message(), c.remedy(), c.slurmState(), c.forRuns(), c.onUnknown(), c.timeout(), c.every(), c.node());
            checks.add(judged);
            boolean fed = (capture != null && NVIDIA_SMI.contains(c.use())) || (kernelLog != null && KERNEL_LOG.contains(c.use()))
                    || (dcgmi != null && c.use().startsWith("dcgm."));
            if (fed) {
                replayable.add(c.name());
            }
        }
        Config replayed = new Config(cfg.file(), cfg.settings(), cfg.hostgroups(), checks, cfg.sections());

        Map<String, CheckResult> byName = new LinkedHashMap<>();
        Verdict ran = null;
        if (!replayable.isEmpty()) {
            Runner runner = new Runner(loader.registry(), loader.evaluator(), Clock.systemUTC());
            Map<Class<?>, Object> services = new LinkedHashMap<>();
            services.put(GpuSource.class, capture != null ? new CaptureGpuSource(capture) : CaptureGpuSource.none());
            if (capture != null) {
                Map<String, Integer> byPci = new LinkedHashMap<>();
                capture.gpus().forEach(g -> {
                    if (g.pciBusId() != null) {
                        byPci.put(XidEvent.normalizePci(g.pciBusId()), g.index());
                    }
                });
                PciToGpu pciToGpu = bus -> java.util.Optional.ofNullable(byPci.get(bus));
                services.put(PciToGpu.class, pciToGpu);
            }
            if (dcgmi != null) {
                services.put(DcgmiOutputs.class, dcgmi);
            }
            RunRequest req = RunRequest.of(replayed, node, new StateStore(scratch)).withOnly(replayable).withServices(services);
            ran = runner.run(req);
            ran.checks().forEach(r -> byName.put(r.name(), r));
        }
        List<CheckResult> all = new ArrayList<>();
        for (CheckConfig c : checks) {
            CheckResult r = byName.get(c.name());
            all.add(r != null ? r : CheckResult.skipped(c.name(), c.use(), "replay: no capture holds data for " + c.use()));
        }
        Verdict verdict = ran == null ? new Verdict(node, java.time.Instant.now(), 0, all)
                : new Verdict(node, ran.started(), ran.durationMs(), all);
        List<String> notes = new ArrayList<>();
        if (capture != null) {
            notes.add("replayed " + capture.source() + " (" + capture.gpus().size() + " GPU"
                    + (capture.gpus().size() == 1 ? "" : "s") + (capture.driverVersion() == null ? "" : ", driver " + capture.driverVersion()) + ")");
        }
        if (kernelLog != null) {
            notes.add("replayed kernel log " + kernelLog);
        }
        if (dcgmi != null) {
            notes.add("replayed dcgmi output " + (dcgmiHealth != null ? dcgmiHealth + " " : "") + (dcgmiDiag != null ? dcgmiDiag : ""));
        }
        if (json) {
            System.out.println(JsonReport.render(verdict, notes));
        } else {
            System.out.print(TextReport.render(verdict, verbose, notes));
        }
        System.out.flush();
        return verdict.severity() == Severity.FAIL ? ExitCodes.FAIL : ExitCodes.OK;
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover empty temp directory is harmless
        }
    }
}
