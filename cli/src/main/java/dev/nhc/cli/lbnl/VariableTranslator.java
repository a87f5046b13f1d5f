package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Config lines that set variables ({@code * || export TIMEOUT=15}). LBNL's own settings become nhc
 * settings or a note on how nhc does the same; variables that change where LBNL's functions read
 * their data make the later lines of that family carried over; any other variable is passed to the
 * carried-over checks after it, which is where LBNL NHC would use it.
 */
final class VariableTranslator {
    private static final Pattern ASSIGNMENTS = Pattern.compile(
            "^(?:export\\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=(?:\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|[^\\s;&|<>()`'\"]*)+\\s*)+$");
    private static final Pattern ONE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=((?:\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|[^\\s;&|<>()`'\"]*)+)");
    private static final Map<String, String> DATA_SOURCES = Map.ofEntries(
            Map.entry("DF_CMD", FsTranslator.FAMILY), Map.entry("DF_FLAGS", FsTranslator.FAMILY),
            Map.entry("DFI_CMD", FsTranslator.FAMILY), Map.entry("DFI_FLAGS", FsTranslator.FAMILY),
            Map.entry("MOUNT_CMD", FsTranslator.FAMILY), Map.entry("CPUINFO_FILE", HwTranslator.FAMILY),
            Map.entry("MEMINFO_FILE", HwTranslator.FAMILY), Map.entry("NETDEV_FILE", HwTranslator.FAMILY),
            Map.entry("KMOD_FILE", HwTranslator.FAMILY), Map.entry("PASSWD_DATA_SRC", PsTranslator.FAMILY),
            Map.entry("MAX_SYS_UID", PsTranslator.FAMILY), Map.entry("LOGIN_DEFS_SRC", PsTranslator.FAMILY),
            Map.entry("STAT_CMD", FileTranslator.FAMILY), Map.entry("PATH", CmdTranslator.FAMILY));

    private VariableTranslator() {
    }

    /** The family of LBNL functions whose data source the variable changes, or null. */
    static String family(String variable) {
        return DATA_SOURCES.get(variable);
    }

    /** Whether the check text only sets variables. */
    static boolean isAssignment(String evalText) {
        return ASSIGNMENTS.matcher(evalText).matches();
    }

    static Outcome translate(String evalText, boolean allHosts, ImportContext ctx) {
        if (!allHosts) {
            return someHosts(evalText);
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        List<String> carried = new ArrayList<>();
        Matcher m = ONE.matcher(evalText);
        while (m.find()) {
            String name = m.group(1);
            String raw = m.group(2);
            String value = unquote(raw);
            switch (name) {
                case "TIMEOUT" -> {
                    if (value == null || !value.matches("[0-9]{1,5}")) {
                        return new Refused("TIMEOUT=" + raw + " is not whole seconds");
                    }
                    int t = Integer.parseInt(value);
                    ctx.lbnlTimeout = t;
                    if (t == 0) {
                        notes.add("TIMEOUT=0 turns LBNL's watchdog off; an nhc run always ends by settings.deadline (45 s unless set)");
                    } else {
                        settings.put("deadline", t + "s");
                        settings.put("check_timeout", Math.min(10, t) + "s");
                        if (t > 55) {
                            notes.add("slurmd kills a health check after 60 s; a deadline of " + t + " s is only right outside Slurm");
                        }
                    }
                }
                case "DEBUG" -> {
                    if ("1".equals(value)) {
                        settings.put("log_level", "debug");
                    } else {
                        notes.add("DEBUG=" + raw + ": nhc logs warnings and errors unless settings.log_level says otherwise");
                    }
                }
                case "MARK_OFFLINE" -> notes.add("0".equals(value)
                        ? "MARK_OFFLINE=0: nhc changes a node's state only when run with --slurm (nhc-slurm); run 'nhc run' without it to only report"
                        : "MARK_OFFLINE=" + raw + ": nhc-slurm (nhc run --slurm) drains failing nodes and resumes the ones it drained");
                case "NHC_RM" -> {
                    String rm = value == null ? raw : value;
                    if (rm.equals("slurm")) {
                        notes.add("NHC_RM=slurm: use nhc-slurm as slurmd's HealthCheckProgram (see docs/slurm.md)");
                    } else if (rm.equals("none") || rm.isEmpty()) {
                        notes.add("NHC_RM=" + raw + ": 'nhc run' without --slurm only reports");
                    } else {
                        return new Refused("NHC_RM=" + raw + ": nhc marks nodes offline in Slurm only; it cannot tell " + rm + " about a failing node");
                    }
                }
                case "NHC_CHECK_ALL" -> notes.add("NHC_CHECK_ALL=" + raw + ": nhc always runs every check and reports every failure");
                case "NHC_CHECK_FORKED" -> notes.add("NHC_CHECK_FORKED=" + raw + ": nhc runs every check in its own thread under its own timeout");
                case "DETACHED_MODE", "DETACHED_MODE_FAIL_NODATA" -> notes.add(name + "=" + raw
                        + ": nhc has no detached mode; a run ends by settings.deadline, and 'nhc daemon' keeps results between polls");
                case "VERBOSE", "SILENT" -> notes.add(name + "=" + raw + ": nhc prints findings; 'nhc run --verbose' prints every check");
                case "LOGFILE", "SYSLOG_TAG", "SYSLOG_CMD" -> notes.add(name + "=" + raw + ": nhc's report goes to stdout; settings.log_file adds a log file");
                case "DF_FLAGS", "DFI_FLAGS" -> {
                    DfFlags flags = value == null ? null : DfFlags.parse(value);
                    if (flags == null || flags.problem() != null) {
                        ctx.taint(FsTranslator.FAMILY, name);
                        ctx.assigned.add(name);
                        carried.add(name);
                    } else {
                        if (name.equals("DF_FLAGS")) {
                            ctx.df = flags;
                        } else {
                            ctx.dfi = flags;
                        }
                        notes.add(name + "=" + value + ": the filesystem checks after this line compare what df " + value + " prints");
                    }
                }
                case "NVIDIA_HEALTHMON", "NVIDIA_HEALTHMON_ARGS", "NVIDIA_SMI_HEALTHMON", "NVIDIA_SMI_HEALTHMON_ARGS" -> {
                    if (value == null) {
                        ctx.taint(GpuTranslator.FAMILY, name);
                        ctx.assigned.add(name);
                        carried.add(name);
                    } else {
                        ctx.tools.put(name, value);
                        notes.add(name + "=" + raw + ": the GPU checks after this line run with it");
                    }
                }
                case "HOSTNAME" -> {
                    if (!raw.matches("\"?\\$\\{?HOSTNAME_S}?\"?")) {
                        return new Refused("HOSTNAME=" + raw + " renames the node for the resource manager; nhc uses the short host name (or SLURMD_NODENAME)");
                    }
                    notes.add("HOSTNAME=$HOSTNAME_S: nhc already uses the short host name (or slurmd's SLURMD_NODENAME)");
                }
                default -> {
                    String family = DATA_SOURCES.get(name);
                    if (family != null) {
                        ctx.taint(family, name);
                    }
                    ctx.assigned.add(name);
                    carried.add(name);
                }
            }
        }
        if (!carried.isEmpty()) {
            ctx.exports.add(evalText.startsWith("export") ? evalText : "export " + evalText);
            if (!settings.isEmpty() || !notes.isEmpty()) {
                return new Refused("mixes LBNL settings with other variables (" + String.join(", ", carried) + "); put them on separate lines");
            }
            return new CarriedOver(String.join(", ", carried) + (carried.size() == 1 ? " is" : " are")
                    + " passed to the carried-over checks after this line; translated checks do not read "
                    + (carried.size() == 1 ? "it" : "them") + (carried.stream().anyMatch(DATA_SOURCES::containsKey)
                    ? ", so the later checks it changes are carried over too" : ""));
        }
        return new Translated(List.of(), settings, notes);
    }

    /**
     * Variables set on some hosts only. nhc's settings are one for every host, but two of LBNL's change
     * no verdict: HOSTNAME=$HOSTNAME_S (the name LBNL NHC gives the resource manager, after the host
     * matches are made) and TIMEOUT (LBNL's watchdog; nhc's run ends by its deadline on every host).
     */
    private static Outcome someHosts(String evalText) {
        List<String> notes = new ArrayList<>();
        List<String> differences = new ArrayList<>();
        Matcher m = ONE.matcher(evalText);
        while (m.find()) {
            String name = m.group(1);
            String raw = m.group(2);
            if (name.equals("HOSTNAME") && raw.matches("\"?\\$\\{?HOSTNAME_S}?\"?")) {
                notes.add("HOSTNAME=$HOSTNAME_S on these hosts: nhc already gives Slurm the short host name (or SLURMD_NODENAME)");
            } else if (name.equals("TIMEOUT") && unquote(raw) != null && unquote(raw).matches("[0-9]{1,5}")) {
                differences.add("TIMEOUT=" + unquote(raw) + " on these hosts only: nhc has one deadline for every host (settings.deadline), "
                        + "and slurmd kills a health check after 60 s whatever LBNL's watchdog allows");
            } else {
                return new Refused("sets " + name + " for some hosts only; nhc settings apply to every host, so set this by hand");
            }
        }
        return new Translated(List.of(), Map.of(), notes, differences);
    }

    /** The value bash would assign, or null when it expands something at run time. */
    private static String unquote(String raw) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < raw.length()) {
            char c = raw.charAt(i);
            if (c == '\'') {
                int end = raw.indexOf('\'', i + 1);
                out.append(raw, i + 1, end);
                i = end + 1;
            } else if (c == '"') {
                int k = i + 1;
                while (raw.charAt(k) != '"') {
                    if (raw.charAt(k) == '$' || raw.charAt(k) == '`') {
                        return null;
                    }
                    if (raw.charAt(k) == '\\') {
                        k++;
                    }
                    out.append(raw.charAt(k));
                    k++;
                }
                i = k + 1;
            } else if (c == '$' || c == '`') {
                return null;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
