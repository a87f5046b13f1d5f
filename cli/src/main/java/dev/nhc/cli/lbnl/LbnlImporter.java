package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns an LBNL NHC config into nhc checks line by line: each non-comment line is translated
 * (checks or settings with the same meaning), carried over (a {@code script} check that has LBNL
 * NHC evaluate the line itself, with {@code nhc -e}, which neither logs nor marks the node offline),
 * or refused with the reason. Nothing is dropped silently.
 */
public final class LbnlImporter {
    /** Where LBNL NHC installs its driver; the carried-over checks run it. */
    public static final String DEFAULT_LBNL_NHC = "/usr/sbin/nhc";
    /** Variables LBNL NHC computes while running other checks: a carried-over line runs alone and would see them empty. */
    private static final Pattern INTERNAL_VARIABLE = Pattern.compile(
            "(HW_|PS_|FS_|DF_|DFI_|NHC_STAT_|PWDATA_|PWUID_|JOB_).*|LOADAVG|RUNPROCS|TOTPROCS|LASTPID|NHC_AUTH_USERS");

    /** The variable a carried-over line reaches LBNL NHC in. */
    public static final String LINE_VARIABLE = "NHC_IMPORTED_LINE";

    public enum Kind { TRANSLATED, CARRIED_OVER, REFUSED }

    /** A check written to the output, with its final unique name and host selection. */
    public record Emitted(NhcCheck check, String name, List<String> on) {
    }

    /**
     * What became of one config line. {@code differences} are where nhc's checks are not exactly what
     * LBNL NHC does with the line (the line's and its checks'), which the import prints on stderr.
     */
    public record Entry(LbnlLine line, Kind kind, String reason, List<String> notes, List<Emitted> checks, Map<String, Object> settings,
                        List<String> differences) {
        public Entry(LbnlLine line, Kind kind, String reason, List<String> notes, List<Emitted> checks, Map<String, Object> settings) {
            this(line, kind, reason, notes, checks, settings, List.of());
        }
    }

    /** The whole import: entries in file order, the settings and hostgroups they make. */
    public record Result(String file, List<Entry> entries, Map<String, Object> settings, Map<String, List<String>> hostgroups,
                         Map<String, String> hostgroupSources) {
        public long count(Kind kind) {
            return entries.stream().filter(e -> e.kind() == kind).count();
        }

        /** Whether a check would start a service (a process check with an action), which runs only with settings.run_actions. */
        public boolean hasActions() {
            return entries.stream().flatMap(e -> e.checks().stream()).anyMatch(c -> c.check().with().containsKey("action"));
        }
    }

    private final List<FunctionTranslator> translators = List.of(new FsTranslator(), new HwTranslator(), new SiteTranslator(),
            new PsTranslator(), new LogOnlyTranslator(), new FileTranslator(), new CmdTranslator(), new DmiTranslator(), new GpuTranslator());
    private final String lbnlNhc;

    /** @param lbnlNhc the LBNL NHC driver the carried-over checks run */
    public LbnlImporter(String lbnlNhc) {
        this.lbnlNhc = lbnlNhc;
    }

    public Result importConfig(String fileName, String content) {
        ImportContext ctx = new ImportContext();
        List<Entry> entries = new ArrayList<>();
        Map<String, Object> settings = new LinkedHashMap<>();
        Map<String, List<String>> hostgroups = new LinkedHashMap<>();
        Map<String, String> groupOf = new LinkedHashMap<>();
        Map<String, String> groupSources = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        List<LbnlLine> lines = LbnlConfigReader.read(content);
        for (LbnlLine line : lines) {
            if (line.commentOrBlank()) {
                continue;
            }
            if (line == lines.get(lines.size() - 1) && !content.endsWith("\n")) {
                entries.add(skipped(line, "the file does not end with a newline, and LBNL NHC's 'read' drops a last line without one"));
                continue;
            }
            if (!line.separated()) {
                entries.add(skipped(line, "it has no '||' between a host match and a check, so LBNL NHC takes the whole line for a host match, "
                        + "which no host name matches"));
                continue;
            }
            if (line.target().isEmpty() || line.check().isEmpty()) {
                entries.add(skipped(line, "nothing on one side of '||'"));
                continue;
            }
            HostPattern.Result host = HostPattern.translate(line.target());
            ShellWords.Parsed parsed = ShellWords.parse(line.check());
            if (host.none() && !VariableTranslator.isAssignment(parsed.evalText())) {
                entries.add(new Entry(line, Kind.TRANSLATED, null, List.of("selects no host: " + host.problem()), List.of(), Map.of(),
                        List.of("the host match selects no host in LBNL NHC either (" + host.problem() + "): nothing is imported")));
                continue;
            }
            Outcome outcome = outcome(parsed, host, ctx);
            if (outcome instanceof Refused r) {
                entries.add(refused(line, r.reason()));
                continue;
            }
            List<String> on = List.of();
            boolean emits = outcome instanceof Translated t0 ? !t0.checks().isEmpty() : !VariableTranslator.isAssignment(parsed.evalText());
            if (emits && !host.all() && host.problem() == null) {
                String source = line.target().replaceFirst("^!", "");
                String group = groupOf.computeIfAbsent(source, t -> HostgroupName.unique(t, groupOf.values()));
                hostgroups.putIfAbsent(group, host.patterns());
                groupSources.putIfAbsent(group, source);
                on = List.of((host.negated() ? "!" : "") + group);
            }
            if (outcome instanceof Translated t) {
                if (!t.settings().isEmpty()) {
                    settings.putAll(t.settings());
                }
                List<Emitted> emitted = new ArrayList<>();
                List<String> differences = new ArrayList<>(t.differences());
                for (NhcCheck c : t.checks()) {
                    emitted.add(new Emitted(c, unique(c.name(), names), on));
                    differences.addAll(c.differences());
                }
                entries.add(new Entry(line, Kind.TRANSLATED, null, t.notes(), emitted, t.settings(), differences));
            } else {
                CarriedOver co = (CarriedOver) outcome;
                if (VariableTranslator.isAssignment(parsed.evalText())) {
                    entries.add(new Entry(line, Kind.CARRIED_OVER, co.reason(), List.of(), List.of(), Map.of()));
                    continue;
                }
                NhcCheck c = carry(line, parsed, host, ctx);
                entries.add(new Entry(line, Kind.CARRIED_OVER, co.reason(), List.of(), List.of(new Emitted(c, unique(c.name(), names),
                        host.problem() == null ? on : List.of())), Map.of()));
            }
        }
        return new Result(fileName, entries, settings, hostgroups, groupSources);
    }

    private Outcome outcome(ShellWords.Parsed parsed, HostPattern.Result host, ImportContext ctx) {
        if (VariableTranslator.isAssignment(parsed.evalText())) {
            return VariableTranslator.translate(parsed.evalText(), host.all(), ctx);
        }
        for (String v : parsed.variables()) {
            if (INTERNAL_VARIABLE.matcher(v).matches() && !ctx.assigned.contains(v)) {
                return new Refused("uses $" + v + ", which LBNL NHC sets while running other checks; a carried-over line runs on its own"
                        + " and would see it empty, so write the value it stands for");
            }
        }
        if (!parsed.isStatic()) {
            return new CarriedOver("the line is evaluated by bash at run time: " + parsed.dynamic());
        }
        String function = parsed.words().get(0);
        List<String> args = parsed.words().subList(1, parsed.words().size());
        Outcome out = null;
        for (FunctionTranslator t : translators) {
            out = t.translate(function, args, ctx);
            if (out != null) {
                break;
            }
        }
        if (out == null) {
            out = new CarriedOver(function.startsWith("check_")
                    ? function + " is neither LBNL NHC's nor a site function nhc knows"
                    : "'" + function + "' is not one of LBNL NHC's check functions; kept as written");
        }
        if (out instanceof Translated t && !t.checks().isEmpty() && host.problem() != null) {
            return new CarriedOver("the host match: " + host.problem());
        }
        return out;
    }

    /**
     * A script check that has LBNL NHC evaluate the line (after the variables the config set before
     * it), with LBNL NHC's own time limit: its watchdog's TIMEOUT, 30 s unless the config sets one.
     * The line reaches LBNL NHC in the environment, not on its command line: a process check that
     * matches command lines (check_ps_daemon, check_ps_blacklist) would otherwise find LBNL NHC's own
     * "nhc -e 'check_ps_daemon foo'" and pass.
     */
    private NhcCheck carry(LbnlLine line, ShellWords.Parsed parsed, HostPattern.Result host, ImportContext ctx) {
        StringBuilder eval = new StringBuilder();
        for (String e : ctx.exports) {
            eval.append(e).append("; ");
        }
        if (host.problem() != null) {
            // nhc cannot select these hosts; LBNL's own mcheck decides, and other hosts pass
            eval.append("mcheck \"$HOSTNAME\" ").append(ShellWords.quote(line.target())).append(" || exit 0; ");
        }
        eval.append(parsed.evalText());
        String function = parsed.isStatic() ? parsed.words().get(0) : parsed.evalText().split(" ", 2)[0];
        NhcCheck c = new NhcCheck("lbnl-" + FunctionTranslator.slug(function.replaceFirst("^check_", "")).replace('_', '-') + subject(parsed), "script")
                .with("command", List.of(lbnlNhc, "-e", "eval \"$" + LINE_VARIABLE + "\""))
                .with("env", Map.of(LINE_VARIABLE, eval.toString()))
                .timeout(ctx.lbnlTimeout > 0 ? ctx.lbnlTimeout + "s" : null);
        if (host.problem() != null) {
            c.note("runs on every host: " + host.problem() + ", so LBNL NHC's mcheck picks the hosts");
        }
        return c;
    }

    /** A name part for what a carried-over line checks: its first absolute path, else its last plain argument. */
    private static String subject(ShellWords.Parsed parsed) {
        if (!parsed.isStatic() || parsed.words().size() < 2) {
            return "";
        }
        List<String> args = parsed.words().subList(1, parsed.words().size());
        String pick = args.stream().filter(a -> a.startsWith("/") && a.length() > 1 && !a.endsWith("/")).findFirst()
                .orElse(args.get(args.size() - 1));
        return pick.startsWith("-") || !pick.matches("[A-Za-z0-9_./:-]+") ? "" : "-" + FunctionTranslator.slug(pick);
    }

    /** A line LBNL NHC itself never runs: nothing to import, and stderr says so, since its author meant something by it. */
    private static Entry skipped(LbnlLine line, String why) {
        return new Entry(line, Kind.TRANSLATED, null, List.of("LBNL NHC skips this line: " + why), List.of(), Map.of(),
                List.of("LBNL NHC skips this line (" + why + "), so nothing is imported; fix the line if it was meant to do something"));
    }

    private static Entry refused(LbnlLine line, String reason) {
        return new Entry(line, Kind.REFUSED, reason, List.of(), List.of(), Map.of());
    }

    private static String unique(String base, Set<String> names) {
        String b = base.length() > 60 ? base.substring(0, 60).replaceAll("[-.]+$", "") : base;
        String name = b;
        for (int i = 2; !names.add(name); i++) {
            name = b + "-" + i;
        }
        return name;
    }
}
