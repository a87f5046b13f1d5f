package dev.nhc.cli;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.dcgm.DcgmiOutputs;
import dev.nhc.checks.gpu.fabric.FabricManagerLogCapture;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.amd.AmdSmiCapture;
import dev.nhc.checks.gpu.amd.AmdSmiCaptureParser;
import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.CaptureParseException;
import dev.nhc.checks.gpu.capture.GpuCapture;
import dev.nhc.checks.gpu.capture.NvidiaSmiQParser;
import dev.nhc.checks.gpu.xid.PciToGpu;
import dev.nhc.checks.gpu.xid.XidEvent;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.checks.kernel.KernelLogCapture;
import dev.nhc.checks.net.IbPortsSource;
import dev.nhc.checks.net.IbstatCapture;
import dev.nhc.checks.net.IbstatParseException;
import dev.nhc.checks.net.IbstatParser;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.TextReport;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Tags;
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
                        + "PAGE_RETIREMENT) and/or an 'nvidia-smi nvlink --status' capture of the same node, or AMD's "
                        + "'amd-smi static/metric/bad-pages' (--json; bad-pages also as text) or 'rocm-smi --json'. "
                        + "Checks whose data the captures do not hold are listed as skipped and do not count. "
                        + "A capture that cannot be read is an error that names the line, never a pass. "
                        + "Nothing on this machine is read or changed: no NVML, no state directory, no Slurm."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc replay -c /etc/nhc/nhc.yaml --nvidia-smi-q ticket-4711.txt",
                "  nhc replay -c nhc.yaml --nvidia-smi-q q.txt --nvidia-smi-q nvlink.txt --json",
                "  nhc replay -c nhc.yaml --amd-smi static.json --amd-smi metric.json --amd-smi bad-pages.txt",
                "  nhc replay -c nhc.yaml --ibstat ibstat.txt --kernel-log dmesg.txt"})
final class ReplayCommand implements Callable<Integer> {

    @Mixin
    ConfigOption config = new ConfigOption();

    @Option(names = "--nvidia-smi-q", arity = "1", paramLabel = "FILE",
            description = "An 'nvidia-smi -q' or 'nvidia-smi nvlink --status' capture; repeat to combine captures of one node.")
    List<Path> captures = new ArrayList<>();

    @Option(names = "--amd-smi", arity = "1", paramLabel = "FILE",
            description = "An 'amd-smi static|metric|list|bad-pages --json', 'amd-smi bad-pages' or 'rocm-smi --json' capture of AMD GPUs;"
                    + " repeat to combine captures of one node.")
    List<Path> amdCaptures = new ArrayList<>();

    @Option(names = "--kernel-log", paramLabel = "FILE",
            description = "A kernel log (dmesg, journalctl -k, /var/log/kern.log) for gpu.xid and kernel.log checks; read whole.")
    Path kernelLog;

    @Option(names = "--dcgmi-health-json", paramLabel = "FILE", description = "Output of 'dcgmi health -c -j' for dcgm.health checks.")
    Path dcgmiHealth;

    @Option(names = "--dcgmi-diag-json", paramLabel = "FILE", description = "Output of 'dcgmi diag -r N -j' (or its text table) for dcgm.diag checks.")
    Path dcgmiDiag;

    @Option(names = "--ibstat", paramLabel = "FILE",
            description = "Output of 'ibstat' for ib.ports checks; a run that stopped with 'ibpanic' is judged on what it printed.")
    Path ibstatFile;

    @Option(names = {"-v", "--verbose"}, description = "Print one line per check, then every finding with what was observed.")
    boolean verbose;

    @Option(names = "--json", description = "Print exactly one JSON object, as 'nhc run --json' does.")
    boolean json;

    @Option(names = "--hostname", paramLabel = "NAME",
            description = "Judge as this host (checks with 'on:' apply as they would there); default: every check applies.")
    String hostname;

    @Option(names = "--fabricmanager-log", paramLabel = "FILE",
            description = "A fabric manager log (/var/log/fabricmanager.log) for gpu.fabric checks; read whole, every error judged.")
    Path fabricManagerLog;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        Plan plan = config.load(Wiring.loader(), System.err);
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        if (captures.isEmpty() && amdCaptures.isEmpty() && kernelLog == null && dcgmiHealth == null && dcgmiDiag == null && ibstatFile == null
                && fabricManagerLog == null) {
            System.err.println("nhc: replay needs at least one capture: --nvidia-smi-q, --amd-smi, --kernel-log, --dcgmi-health-json, --dcgmi-diag-json,"
                    + " --ibstat or --fabricmanager-log");
            return ExitCodes.INVALID;
        }
        if (!captures.isEmpty() && !amdCaptures.isEmpty()) {
            System.err.println("nhc: a replay judges one node's GPUs: give its nvidia-smi captures or its amd-smi captures, not both;"
                    + " nothing was judged");
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
        IbstatCapture ibstat = null;
        if (ibstatFile != null) {
            try {
                ibstat = IbstatParser.parse(ibstatFile);
            } catch (CaptureFile.Refused e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (IOException e) {
                System.err.println("nhc: cannot read " + ibstatFile + ": " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (IbstatParseException e) {
                for (String p : e.problems()) {
                    System.err.println(ibstatFile + ": " + p);
                }
                System.err.println("nhc: " + ibstatFile + " is not readable ibstat output; nothing was judged");
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
        AmdSmiCapture amd = null;
        for (Path file : amdCaptures) {
            AmdSmiCapture c;
            try {
                c = AmdSmiCaptureParser.parse(file);
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
                System.err.println("nhc: " + file + " is not a readable amd-smi or rocm-smi capture; nothing was judged");
                return ExitCodes.INVALID;
            }
            try {
                amd = amd == null ? c : amd.merge(c);
            } catch (CaptureParseException e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        Path scratch;
        try {
            // Rates and for: N need history a capture does not have: a throw-away state, never the node's.
            scratch = Files.createTempDirectory("nhc-replay");
        } catch (IOException e) {
            System.err.println("nhc: cannot create a scratch directory for the replay: " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        try {
            return judge(plan, capture, amd, dcgmi, ibstat, scratch);
        } finally {
            deleteQuietly(scratch);
        }
    }

    private Integer judge(Plan plan, GpuCapture capture, AmdSmiCapture amd, DcgmiOutputs dcgmi, IbstatCapture ibstat, Path scratch) {
        Path log = null;
        if (kernelLog != null) {
            try {
                // Streamed by the reader, so only bounded and checked here; a pipe is copied into the scratch directory.
                log = CaptureFile.log(kernelLog, Files.createDirectory(scratch.resolve("capture")));
            } catch (CaptureFile.Refused e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (IOException e) {
                System.err.println("nhc: cannot read " + kernelLog + ": " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        Path fmLog = null;
        if (fabricManagerLog != null) {
            try {
                fmLog = CaptureFile.log(fabricManagerLog, Files.createDirectory(scratch.resolve("fabricmanager")));
            } catch (CaptureFile.Refused e) {
                System.err.println("nhc: " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            } catch (IOException e) {
                System.err.println("nhc: cannot read " + fabricManagerLog + ": " + e.getMessage() + "; nothing was judged");
                return ExitCodes.INVALID;
            }
        }
        String node = hostname != null ? hostname : "replay";

        // Which checks the captures feed: a probe says what it reads by its tags.
        Set<String> fed = new LinkedHashSet<>();
        if (capture != null) {
            fed.add(GpuVendor.NVIDIA.tag());
        }
        if (amd != null) {
            fed.add(GpuVendor.AMD.tag());
        }
        if (kernelLog != null) {
            fed.add(Tags.KERNEL_LOG);
        }
        if (dcgmi != null) {
            fed.add(Tags.DCGM);
        }
        if (ibstat != null) {
            fed.add(Tags.INFINIBAND);
        }
        if (fabricManagerLog != null) {
            fed.add(Tags.FABRIC);
        }
        // The captured node's checks, as if on that node: host selectors only when --hostname says which node it was.
        List<PlannedCheck> checks = new ArrayList<>();
        Set<String> replayable = new LinkedHashSet<>();
        for (PlannedCheck p : plan.checks()) {
            CheckConfig c = p.check();
            CheckConfig judged = new CheckConfig(c.name(), c.use(), c.location(), hostname != null ? c.on() : HostSelector.all(), c.with(),
                    c.warn(), c.fail(), c.message(), c.remedy(), c.slurmState(), c.forRuns(), c.onUnknown(), c.timeout(), c.every(), c.node());
            checks.add(p.withCheck(judged));
            for (String tag : fed) {
                if (p.spec().hasTag(tag)) {
                    replayable.add(c.name());
                }
            }
        }
        Plan replayed = plan.withChecks(checks);
        PlanExecutor executor = new PlanExecutor(Clock.systemUTC());

        Map<String, CheckResult> byName = new LinkedHashMap<>();
        Verdict ran = null;
        if (!replayable.isEmpty()) {
            Map<Class<?>, Object> services = new LinkedHashMap<>();
            services.put(GpuSource.class, amd != null ? amd : capture != null ? new CaptureGpuSource(capture) : CaptureGpuSource.none());
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
            if (kernelLog != null) {
                services.put(KernelLogCapture.class, new KernelLogCapture(log));
            }
            if (ibstat != null) {
                services.put(IbPortsSource.class, ibstat);
            }
            if (fmLog != null) {
                services.put(FabricManagerLogCapture.class, new FabricManagerLogCapture(fmLog));
            }
            RunRequest req = RunRequest.of(replayed, node, new StateStore(scratch)).withOnly(replayable).withServices(services);
            ran = executor.run(req);
            ran.checks().forEach(r -> byName.put(r.name(), r));
        }
        List<CheckResult> all = new ArrayList<>();
        for (PlannedCheck p : checks) {
            CheckResult r = byName.get(p.name());
            all.add(r != null ? r : CheckResult.skipped(p.name(), p.check().use(), p.spec().tags(),
                    "replay: no capture holds data for " + p.check().use()));
        }
        Verdict verdict = executor.policy().verdict(node, ran == null ? java.time.Instant.now() : ran.started(),
                ran == null ? 0 : ran.durationMs(), all);
        List<String> notes = new ArrayList<>();
        if (capture != null) {
            notes.add("replayed " + capture.source() + " (" + capture.gpus().size() + " GPU"
                    + (capture.gpus().size() == 1 ? "" : "s") + (capture.driverVersion() == null ? "" : ", driver " + capture.driverVersion()) + ")");
        }
        if (amd != null) {
            notes.add("replayed " + amd.source() + " (" + amd.devices().size() + " AMD GPU" + (amd.devices().size() == 1 ? "" : "s")
                    + (amd.driverVersion() == null ? "" : ", driver " + amd.driverVersion()) + ")");
        }
        if (kernelLog != null) {
            notes.add("replayed kernel log " + kernelLog);
        }
        if (fabricManagerLog != null) {
            notes.add("replayed fabric manager log " + fabricManagerLog);
        }
        if (dcgmi != null) {
            notes.add("replayed dcgmi output " + (dcgmiHealth != null ? dcgmiHealth + " " : "") + (dcgmiDiag != null ? dcgmiDiag : ""));
        }
        if (ibstat != null) {
            notes.add("replayed ibstat output " + ibstatFile + " (" + ibstat.ports().size() + " port" + (ibstat.ports().size() == 1 ? "" : "s")
                    + "; ibstat prints no counters, so ib.ports flap rules are not judged)");
            for (String panic : ibstat.panics()) {
                notes.add("ibstat reported: " + panic + " (judged the ports it printed)");
            }
        }
        if (json) {
            System.out.println(JsonReport.render(verdict, notes));
        } else {
            System.out.print(TextReport.render(verdict, verbose, notes));
        }
        System.out.flush();
        return executor.policy().exitCode(verdict.severity(), false);
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover empty temp directory is harmless
        }
    }
}
