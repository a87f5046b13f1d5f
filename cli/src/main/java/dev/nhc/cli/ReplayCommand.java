package dev.nhc.cli;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.replay.CaptureKind;
import dev.nhc.checks.replay.ReplayInputs;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.engine.report.TextReport;
import dev.nhc.model.Verdict;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "replay", sortOptions = false,
        description = {"Judge captured tool output with the config's rules instead of this node.",
                "",
                "For triage of what a user attached to a ticket: the same rules, report and exit codes as "
                        + "'nhc run', applied to captures of one node, each told apart by its content: nvidia-smi "
                        + "(-q with or without its header, whole, a -d subset or a part; its table; --query-gpu CSV; "
                        + "nvlink --status; or only its error lines), dcgmi diag (JSON of DCGM 2 to 4, or its table), "
                        + "dcgmi health, AMD's amd-smi static/metric/list/bad-pages (--json; bad-pages also as text) or rocm-smi --json, "
                        + "a kernel log, ibstat, a fabric manager log. "
                        + "Checks whose data the captures do not hold are listed as skipped and do not count. "
                        + "What a capture should hold and does not (cut off, garbled) is UNKNOWN with its line, never a pass. "
                        + "Nothing on this machine is read or changed: no NVML, no state directory, no Slurm."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc replay -c /etc/nhc/nhc.yaml ticket-4711.txt",
                "  nhc replay -c nhc.yaml q.txt nvlink.txt dmesg.txt --json",
                "  nhc replay -c nhc.yaml amd-smi-static.json amd-smi-metric.json bad-pages.txt",
                "  nhc replay -c nhc.yaml --ibstat ibstat.txt --kernel-log <(journalctl -k)"})
final class ReplayCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Mixin
    ConfigOption config = new ConfigOption();

    @Parameters(paramLabel = "CAPTURE", arity = "0..*",
            description = "Captures of one node, each read as what its content shows it is (nvidia-smi, amd-smi, rocm-smi, dcgmi, kernel log, ibstat, fabric manager log).")
    List<Path> positional = new ArrayList<>();

    @Option(names = "--nvidia-smi-q", arity = "1", paramLabel = "FILE",
            description = "nvidia-smi output (-q, its table, --query-gpu CSV, nvlink --status, its error lines); repeat to combine captures of one node.")
    List<Path> captures = new ArrayList<>();

    @Option(names = "--amd-smi", arity = "1", paramLabel = "FILE",
            description = "An 'amd-smi static|metric|list|bad-pages --json', 'amd-smi bad-pages' or 'rocm-smi --json' capture of AMD GPUs;"
                    + " repeat to combine captures of one node.")
    List<Path> amdCaptures = new ArrayList<>();

    @Option(names = "--kernel-log", paramLabel = "FILE",
            description = "A kernel log (dmesg, journalctl -k, /var/log/kern.log) for gpu.xid and kernel.log checks; read whole.")
    Path kernelLog;

    @Option(names = "--dcgmi-health-json", paramLabel = "FILE", description = "Output of 'dcgmi health -c -j' (or its table) for dcgm.health checks.")
    Path dcgmiHealth;

    @Option(names = "--dcgmi-diag-json", paramLabel = "FILE",
            description = "Output of 'dcgmi diag -r N -j' (DCGM 2 to 4, also --iterations) or its table, whole or in part, for dcgm.diag checks.")
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
        io = Streams.of(spec);
        Plan plan = config.load(Wiring.loader(), io.err());
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        if (positional.isEmpty() && captures.isEmpty() && amdCaptures.isEmpty() && kernelLog == null && dcgmiHealth == null && dcgmiDiag == null && ibstatFile == null
                && fabricManagerLog == null) {
            io.err().println("nhc: replay needs at least one capture: CAPTURE..., --nvidia-smi-q, --amd-smi, --kernel-log, --dcgmi-health-json,"
                    + " --dcgmi-diag-json, --ibstat or --fabricmanager-log");
            return ExitCodes.INVALID;
        }
        Path scratch;
        try {
            // Rates and for: N need history a capture does not have: a throw-away state, never the node's.
            scratch = Files.createTempDirectory("nhc-replay");
        } catch (IOException e) {
            io.err().println("nhc: cannot create a scratch directory for the replay: " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        try {
            ReplayInputs inputs = new ReplayInputs(scratch);
            Integer refused = read(inputs);
            if (refused != null) {
                return refused;
            }
            Verdict verdict = Replay.judge(plan, inputs, hostname, scratch);
            List<String> notes = inputs.notes();
            if (json) {
                io.out().println(JsonReport.render(verdict, notes));
            } else {
                io.out().print(TextReport.render(verdict, verbose, notes));
            }
            io.out().flush();
            return ExitCodes.of(verdict.severity(), false);
        } catch (IOException e) {
            io.err().println("nhc: cannot replay: " + e.getMessage());
            return ExitCodes.INTERNAL;
        } finally {
            Replay.deleteQuietly(scratch);
        }
    }

    /** Reads every capture given; null when all could be read, else the exit code after saying why (nothing judged). */
    private Integer read(ReplayInputs inputs) {
        List<Given> given = new ArrayList<>();
        for (Path p : captures) {
            given.add(new Given(CaptureKind.NVIDIA_SMI, p));
        }
        for (Path p : amdCaptures) {
            given.add(new Given(CaptureKind.AMD_SMI, p));
        }
        add(given, CaptureKind.KERNEL_LOG, kernelLog);
        add(given, CaptureKind.DCGMI_HEALTH, dcgmiHealth);
        add(given, CaptureKind.DCGMI_DIAG, dcgmiDiag);
        add(given, CaptureKind.IBSTAT, ibstatFile);
        add(given, CaptureKind.FABRIC_MANAGER_LOG, fabricManagerLog);
        try {
            for (Given g : given) {
                // an option's capture that is plainly another tool's output was given to the wrong option
                // (a pipe is read once, with the bound of its option's kind, and not looked at first)
                Optional<CaptureKind> shows = Files.isRegularFile(g.file()) ? inputs.recognise(g.file()) : Optional.empty();
                if (shows.isPresent() && shows.get() != g.kind()) {
                    io.err().println("nhc: " + g.file() + " is a capture of " + shows.get().label() + ", given as one of " + g.kind().label()
                            + "; give it without an option (nhc tells captures apart by their content); nothing was judged");
                    return ExitCodes.INVALID;
                }
            }
            for (Path p : positional) {
                Optional<CaptureKind> kind = inputs.recognise(p);
                if (kind.isEmpty()) {
                    io.err().println("nhc: cannot tell what " + p + " is: it is none of the captures nhc reads (nvidia-smi, amd-smi, rocm-smi, dcgmi diag or health,"
                            + " a kernel log, ibstat, a fabric manager log); give it with the option of its tool if it is one; nothing was judged");
                    return ExitCodes.INVALID;
                }
                given.add(new Given(kind.get(), p));
            }
            for (Given g : given) {
                inputs.add(g.kind(), g.file(), g.file().toString());
            }
        } catch (CaptureFile.Refused e) {
            io.err().println("nhc: " + e.getMessage() + "; nothing was judged");
            return ExitCodes.INVALID;
        } catch (ReplayInputs.Mismatch e) {
            io.err().println("nhc: " + e.getMessage() + "; nothing was judged");
            return ExitCodes.INVALID;
        } catch (IOException e) {
            io.err().println("nhc: cannot read a capture: " + e.getMessage() + "; nothing was judged");
            return ExitCodes.INVALID;
        }
        return null;
    }

    /** A capture and what it is: by its option, or recognised from its content. */
    private record Given(CaptureKind kind, Path file) {
    }

    private static void add(List<Given> given, CaptureKind kind, Path file) {
        if (file != null) {
            given.add(new Given(kind, file));
        }
    }
}
