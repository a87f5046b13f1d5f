package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigProblem;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.report.JsonReport;
import dev.nhc.model.Severity;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "backtest", sortOptions = false,
        description = {"Judge every capture under a directory with a config, as 'nhc replay' judges one.",
                "",
                "A site's recorded incidents (nvidia-smi, dcgmi, kernel logs, ibstat, fabric manager logs; each told apart by "
                        + "its content, each replayed alone) judged by the config: one row per capture with its verdict and "
                        + "findings. With --against OLD, only the captures whose verdict the config changes: try a rule change on "
                        + "what happened before it drains a fleet. With --labels, each capture's verdict and findings are compared "
                        + "with what the file says they should be. A file that is no capture nhc reads is UNKNOWN with the reason.",
                "",
                "Exit codes: 0 it ran (and every label matched), 1 a capture is not judged as its label says (or has no label), "
                        + "2 a config, the labels or the command line is invalid."},
        footerHeading = "%nExamples:%n",
        footer = {"  nhc backtest -c /etc/nhc/nhc.yaml /srv/incidents",
                "  nhc backtest -c new.yaml --against /etc/nhc/nhc.yaml /srv/incidents",
                "  nhc backtest -c nhc.yaml --labels corpus/labels.txt --json corpus/captures"})
final class BacktestCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Mixin
    ConfigOption config = new ConfigOption();

    @Parameters(paramLabel = "DIR", arity = "1..*", description = "Directories of captures (every file under them), or capture files.")
    List<Path> dirs = new ArrayList<>();

    @Option(names = "--against", paramLabel = "OLD", description = "Another config: show only the captures whose verdict differs between the two.")
    Path against;

    @Option(names = "--labels", paramLabel = "FILE", description = "What each capture should be judged: 'capture | verdict | message regex | why' a line.")
    Path labelsFile;

    @Option(names = "--hostname", paramLabel = "NAME",
            description = "Judge as this host (checks with 'on:' apply as they would there); default: every check applies.")
    String hostname;

    @Option(names = {"-v", "--verbose"}, description = "Print every finding of each capture under its row.")
    boolean verbose;

    @Option(names = "--json", description = "Print exactly one JSON object: per capture its kind and its verdict as 'nhc run --json' prints it.")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        Plan plan = config.load(Wiring.loader(), io.err());
        if (plan == null) {
            return ExitCodes.INVALID;
        }
        Plan old = null;
        if (against != null) {
            try {
                old = Wiring.loader().load(against);
            } catch (ConfigException e) {
                JsonOnError.configProblems(e.problems());
                for (ConfigProblem p : e.problems()) {
                    io.err().println(p);
                }
                io.err().println("nhc: the config given with --against is invalid; nothing was done");
                return ExitCodes.INVALID;
            }
        }
        Map<String, Labels.Label> labels = null;
        if (labelsFile != null) {
            try {
                labels = Labels.read(labelsFile);
            } catch (Labels.Invalid e) {
                io.err().println(e.getMessage());
                io.err().println("nhc: the labels are invalid; nothing was done");
                return ExitCodes.INVALID;
            } catch (IOException e) {
                io.err().println("nhc: " + e.getMessage() + "; nothing was done");
                return ExitCodes.INVALID;
            }
        }
        for (Path d : dirs) {
            if (!Files.exists(d)) {
                io.err().println("nhc: " + d + ": no such file or directory; nothing was done");
                return ExitCodes.INVALID;
            }
        }
        List<Backtest.Row> rows = new ArrayList<>();
        List<Backtest.Row> before = new ArrayList<>();
        try {
            for (Path d : dirs) {
                for (Path f : Backtest.captures(d)) {
                    String name = Files.isRegularFile(d) ? f.toString() : d.relativize(f).toString();
                    rows.add(Backtest.judge(plan, f, name, hostname));
                    if (old != null) {
                        before.add(Backtest.judge(old, f, name, hostname));
                    }
                }
            }
        } catch (IOException e) {
            io.err().println("nhc: cannot backtest: " + e.getMessage());
            return ExitCodes.INTERNAL;
        }
        List<String> mismatches = labels == null ? List.of() : mismatches(rows, labels);
        if (json) {
            io.out().println(json(rows, old == null ? null : before, labels));
        } else {
            io.out().print(BacktestText.render(rows, old == null ? null : before, labels, verbose));
            mismatches.forEach(m -> io.out().println("label: " + m));
        }
        io.out().flush();
        return mismatches.isEmpty() ? ExitCodes.OK : ExitCodes.FAIL;
    }

    /** Every capture not judged as labelled, every capture without a label, every label without a capture. */
    static List<String> mismatches(List<Backtest.Row> rows, Map<String, Labels.Label> labels) {
        List<String> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (Backtest.Row r : rows) {
            seen.add(r.capture());
            Labels.Label l = labels.get(r.capture());
            if (l == null) {
                out.add(r.capture() + " has no label");
            } else if (!l.matches(r.severity(), r.text())) {
                out.add(r.capture() + " is " + r.severity().label() + ", labelled " + l.expected() + " (line " + l.line() + ")");
            }
        }
        for (Labels.Label l : labels.values()) {
            if (!seen.contains(l.capture())) {
                out.add(l.capture() + " (line " + l.line() + ") is labelled but not there");
            }
        }
        return out;
    }

    private String json(List<Backtest.Row> rows, List<Backtest.Row> before, Map<String, Labels.Label> labels) {
        List<Object> captures = new ArrayList<>();
        Map<Severity, Integer> counts = Backtest.counts(rows);
        List<Integer> shown = Backtest.shown(rows, before);
        for (int i : shown) {
            Backtest.Row r = rows.get(i);
            Backtest.Row b = before == null ? null : before.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("capture", r.capture());
            m.put("kind", r.kind() == null ? null : r.kind().label());
            m.put("severity", r.severity().label());
            m.put("verdict", r.verdict() == null ? null : JsonReport.toMap(r.verdict(), r.notes()));
            m.put("error", r.error());
            if (b != null) {
                m.put("before", b.verdict() == null ? null : JsonReport.toMap(b.verdict(), b.notes()));
                m.put("before_severity", b.severity().label());
            }
            if (labels != null) {
                Labels.Label l = labels.get(r.capture());
                m.put("label", l == null ? null : Map.of("verdict", l.verdict().label(), "message", l.message() == null ? "-" : l.message().pattern(),
                        "why", l.why()));
                m.put("matches_label", l != null && l.matches(r.severity(), r.text()));
            }
            captures.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("config", config.file().toString());
        out.put("against", against == null ? null : against.toString());
        out.put("captures", captures);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("captures", rows.size());
        for (Severity s : Severity.values()) {
            summary.put(s.label(), counts.getOrDefault(s, 0));
        }
        if (before != null) {
            summary.put("changed", shown.size());
        }
        if (labels != null) {
            summary.put("label_mismatches", mismatches(rows, labels));
        }
        out.put("summary", summary);
        try {
            return JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES).asString(out);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
