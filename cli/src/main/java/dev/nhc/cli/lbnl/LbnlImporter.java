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

    /** Variables LBNL NHC 1.4.3's nhc sets or takes from its command line before it reads the config (nhcmain_init_env and after). */
    private static final Set<String> LBNL_RUNTIME = Set.of("PATH", "PS4", "SYSCONFIGDIR", "LIBEXECDIR", "HOSTNAME", "HOSTNAME_S", "RET",
            "LOGGER_TEXT", "NAME", "CONFDIR", "CONFFILE", "INCDIR", "HELPERDIR", "ONLINE_NODE", "OFFLINE_NODE", "LOGFILE", "DEBUG", "SILENT",
            "VERBOSE", "TIMEOUT", "RESULTFILE", "MAX_SYS_UID", "NHC_RM", "NHC_CHECK_ALL", "NHC_CHECK_FORKED", "EVAL_LINE", "DETACHED_MODE",
            "MARK_OFFLINE", "CHECK", "FAIL_CNT", "WATCHDOG_PID", "FORCE_SETSID", "NHC_PID", "NHC_START_TS", "NHC_FD_OUT", "NHC_FD_ERR",
            "NHC_DETACHED", "CHECK_DIED", "NHC_FORCED_SESSION");

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
                        List<String> differences, boolean fromSysconfig) {
        public Entry(LbnlLine line, Kind kind, String reason, List<String> notes, List<Emitted> checks, Map<String, Object> settings) {
            this(line, kind, reason, notes, checks, settings, List.of(), false);
        }

        public Entry(LbnlLine line, Kind kind, String reason, List<String> notes, List<Emitted> checks, Map<String, Object> settings,
                     List<String> differences) {
            this(line, kind, reason, notes, checks, settings, differences, false);
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
    private final Sysconfig sysconfig;

    /** @param lbnlNhc the LBNL NHC driver the carried-over checks run */
    public LbnlImporter(String lbnlNhc) {
        this(lbnlNhc, null);
    }

    /**
     * @param lbnlNhc   the LBNL NHC driver the carried-over checks run
     * @param sysconfig the node's LBNL sysconfig file, whose variables the lines are expanded with; null for none
     */
    public LbnlImporter(String lbnlNhc, Sysconfig sysconfig) {
        this.lbnlNhc = lbnlNhc;
        this.sysconfig = sysconfig;
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
        if (sysconfig != null) {
            // LBNL NHC sources the sysconfig before the config: a data source it sets changes every line of that family
            sysconfig.values().keySet().forEach(v -> {
                String family = VariableTranslator.family(v);
                if (family != null) {
                    ctx.taint(family, v);
                }
            });
        }
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
            List<String> from = new ArrayList<>();
            List<String> pinned = new ArrayList<>();
            List<String> pinnedDifferences = new ArrayList<>();
            String effective = VariableTranslator.isAssignment(parsed.evalText()) ? null
                    : expand(line.check(), ctx, from, pinned, pinnedDifferences);
            Outcome outcome;
            if (effective == null) {
                outcome = outcome(parsed, host, ctx);
            } else if (effective.isEmpty()) {
                outcome = new Translated(List.of(), Map.of(), List.of("LBNL NHC runs nothing here: the condition is false"));
            } else {
                outcome = outcome(ShellWords.parse(effective), host, ctx);
            }
            pinCores(outcome, effective == null ? parsed : ShellWords.parse(effective), host, line, ctx);
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
                List<String> differences = new ArrayList<>(pinnedDifferences);
                differences.addAll(t.differences());
                for (NhcCheck c : t.checks()) {
                    emitted.add(new Emitted(c, unique(c.name(), names), on));
                    differences.addAll(c.differences());
                }
                List<String> notes = new ArrayList<>(from);
                notes.addAll(pinned);
                notes.addAll(t.notes());
                entries.add(new Entry(line, Kind.TRANSLATED, null, notes, emitted, t.settings(), differences, !from.isEmpty()));
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

    /**
     * The line as LBNL NHC would run it with what is known before it runs: the sysconfig's variables,
     * then $HW_CORES where an earlier line pins it; "" when it runs nothing; null when nothing was known.
     * Where each value came from goes to {@code from} (the sysconfig) and {@code pinned} (an earlier line).
     */
    private String expand(String check, ImportContext ctx, List<String> from, List<String> pinned, List<String> differences) {
        String text = null;
        if (sysconfig != null) {
            ShellExpansion.Expanded x = sysconfig.expand(check, ctx.assigned, LbnlImporter::runtime);
            if (!x.used().isEmpty()) {
                x.used().forEach(v -> from.add("$" + v + (sysconfig.values().containsKey(v) ? " is " + ShellWords.quote(sysconfig.values().get(v))
                        : " is unset") + " in " + sysconfig.file()));
                text = ShellExpansion.conditional(x.check());
            }
        }
        String now = text == null ? check : text;
        if (ctx.hwCores != null && !ctx.assigned.contains("HW_CORES") && ShellWords.parse(now).variables().contains("HW_CORES")) {
            ShellExpansion.Expanded x = ShellExpansion.expand(now, Map.of("HW_CORES", Integer.toString(ctx.hwCores)), v -> false);
            pinned.add("$HW_CORES is " + ctx.hwCores + ": LBNL NHC counts the cores when line " + ctx.hwCoresLine
                    + " runs, and that line's check_hw_cpuinfo fails the node unless it finds " + ctx.hwCores);
            differences.add("LBNL NHC's limit is from the cores it counts, nhc's from the " + ctx.hwCores + " that line " + ctx.hwCoresLine
                    + " requires: they differ only on a node that line already fails, and only where LBNL NHC goes on past a failure (-a)");
            text = x.check();
        }
        return text;
    }

    /** Which core count an earlier check_hw_cpuinfo pins $HW_CORES to: one line for every host, translated; any other makes it unknown. */
    private static void pinCores(Outcome outcome, ShellWords.Parsed parsed, HostPattern.Result host, LbnlLine line, ImportContext ctx) {
        if (!parsed.isStatic()) {
            if (parsed.evalText().contains("check_hw_cpuinfo")) {
                ctx.coresSeen = true; // a cpuinfo check whose counts are known only when it runs
                ctx.hwCores = null;
            }
            return;
        }
        if (parsed.words().isEmpty() || !parsed.words().get(0).equals("check_hw_cpuinfo")) {
            return;
        }
        boolean pins = !ctx.coresSeen && outcome instanceof Translated && host.all() && parsed.words().size() >= 3
                && parsed.words().get(2).matches("[0-9]{1,6}");
        ctx.coresSeen = true;
        ctx.hwCores = pins ? Integer.valueOf(parsed.words().get(2)) : null;
        ctx.hwCoresLine = line.number();
    }

    /** Variables LBNL NHC itself sets while it runs: a sysconfig that does not set them does not leave them unset. */
    static boolean runtime(String name) {
        return INTERNAL_VARIABLE.matcher(name).matches() || LBNL_RUNTIME.contains(name);
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
