package dev.nhc.checks.host;

import dev.nhc.checks.kernel.KernelLogLine;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.checks.kernel.ReadStats;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code kernel.log}: regex rules over the kernel log lines that are new since the last run.
 * A {@code fail} pattern that matched keeps failing until reboot or {@code nhc clear CHECK} (a
 * filesystem remounted read-only stays so; reporting it once and then passing would resume a
 * drained node); {@code warn} patterns report the run in which they matched.
 */
public final class KernelLogProbe implements Probe {
    static final String LATCHED = "kl.latched";
    static final String BOOT_ID = "kl.boot_id";
    private static final int TEXT_MAX = 200;

    /** A rule: lines matching {@code regex} give a finding of {@code severity} on the entity {@code name}. */
    record Rule(String name, Pattern regex, Severity severity, String message) {
    }

    static final List<Rule> DEFAULTS = List.of(
            rule("filesystem read-only", "remounted read-only|Remounting filesystem read-only|remounting filesystem read-only",
                    Severity.FAIL, "a filesystem was remounted read-only"),
            rule("block I/O error", "Buffer I/O error", Severity.FAIL, "block device I/O errors"),
            rule("soft lockup", "soft lockup", Severity.WARN, "a CPU soft lockup"),
            rule("hung task", "hung_task|blocked for more than \\d+ seconds", Severity.WARN, "tasks hung in the kernel"),
            rule("out of memory", "Out of memory|oom-kill:", Severity.WARN, "the OOM killer ran"),
            rule("machine check", "Machine check events logged|mce: \\[Hardware Error\\]", Severity.WARN, "machine check (hardware) errors"),
            rule("filesystem error", "EXT4-fs error|XFS \\(\\S+\\): Corruption", Severity.WARN, "filesystem errors"));

    private static Rule rule(String name, String regex, Severity s, String message) {
        return new Rule(name, Pattern.compile(regex), s, message);
    }

    private static final ProbeSpec SPEC = KernelLogSpec.withReader(ProbeSpec.builder("kernel.log",
                    "regex rules over the kernel log lines new since the last run (read-only remounts, I/O errors, lockups, OOM)")
            .entities("one per rule (its name, else its message, else its regex), and \"kernel log\" for the reading itself")
            .param(ParamSpec.optional("patterns", ParamType.ANY, null,
                    "list of {regex, severity: warn|fail, message?, name?}; replaces the defaults (read-only remount and "
                            + "Buffer I/O error fail; soft lockup, hung task, OOM, machine check, filesystem error warn)"))
            .param(ParamSpec.optional("log", ParamType.STRING, "kmsg", "where to read: kmsg (/dev/kmsg), journal, or a file path"))
            .param(ParamSpec.optional("latch", ParamType.BOOLEAN, Boolean.TRUE, "fail matches keep failing until reboot or nhc clear"))
            .field("matches", Unit.COUNT, "lines this rule matched since the last run (observed for rules that matched or are latched)")
            ).build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public void clear(ProbeState state) {
        KernelLogSpec.clearKeepingCursor(state);
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Params p = ctx.params();
        List<Rule> rules;
        try {
            rules = p.has("patterns") ? rules(p.raw("patterns")) : DEFAULTS;
        } catch (IllegalArgumentException e) {
            return ProbeResult.builder().finding(Finding.of("kernel log", Severity.UNKNOWN,
                    "check " + ctx.checkName() + ": " + e.getMessage())).build();
        }
        boolean latch = !Boolean.FALSE.equals(p.bool("latch"));
        ProbeState state = ctx.state();
        String boot = KernelLogReader.bootId(ctx);
        String storedBoot = state.getString(BOOT_ID);
        Map<String, Map<String, Object>> latched = loadLatches(state);
        if (boot != null && storedBoot != null && !boot.equals(storedBoot)) {
            latched.clear();
        }

        Map<String, Match> matches = new LinkedHashMap<>();
        ReadStats stats = null;
        String readError = null;
        try {
            stats = new KernelLogReader(ctx, p.string("log"))
                    .maxLines(p.has("max_lines") ? p.integer("max_lines") : KernelLogReader.DEFAULT_MAX_LINES)
                    .sinceBoot(!Boolean.FALSE.equals(p.bool("since_boot")))
                    .journalctl(p.string("journalctl"))
                    .read(line -> {
                        for (Rule r : rules) {
                            if (r.regex().matcher(line.message()).find()) {
                                matches.computeIfAbsent(r.name(), k -> new Match(r)).add(line);
                            }
                        }
                    });
        } catch (IOException e) {
            readError = e.getMessage();
        }

        ProbeResult.Builder out = ProbeResult.builder();
        for (Rule r : rules) {
            Match m = matches.get(r.name());
            Map<String, Object> l = latch ? latched.get(r.name()) : null;
            if (m != null && latch && r.severity() == Severity.FAIL) {
                Map<String, Object> now = new LinkedHashMap<>();
                now.put("count", m.count + (l == null ? 0 : ((Number) l.get("count")).longValue()));
                now.put("first", l == null ? m.first.when() : l.get("first"));
                now.put("line", clip(m.last.message()));
                latched.put(r.name(), now);
                l = now;
            }
            if (m == null && l == null) {
                continue; // only rules with something to say are entities: a quiet log reads as one "ok"
            }
            out.observe(Observation.of(r.name()).put("matches", m == null ? 0L : m.count).build());
            StringBuilder msg = new StringBuilder(r.message());
            if (l != null && latch && r.severity() == Severity.FAIL) {
                long count = ((Number) l.get("count")).longValue();
                msg.append(": ").append(count).append(count == 1 ? " line" : " lines").append(" since ").append(l.get("first"))
                        .append(", last: ").append(l.get("line"))
                        .append(" — stays failing until reboot or `nhc clear ").append(ctx.checkName()).append('`');
            } else {
                msg.append(": ").append(m.count).append(m.count == 1 ? " line" : " lines").append(" since the last run, last");
                if (!m.last.when().isEmpty()) {
                    msg.append(" at ").append(m.last.when());
                }
                msg.append(": ").append(clip(m.last.message()));
            }
            out.finding(new Finding(null, r.name(), r.severity(), msg.toString(), Remedy.NONE, null, Map.of()));
        }
        latched.keySet().retainAll(latch ? rules.stream().map(Rule::name).toList() : List.of());

        Observation.Builder log = Observation.of("kernel log");
        if (stats != null) {
            KernelLogSpec.putStats(log, stats);
            KernelLogSpec.warnings(stats).forEach(out::finding);
            if (stats.skippedLines() > 0) {
                out.finding(Finding.of("kernel log", Severity.WARN, stats.skippedLines() + " new kernel log lines in "
                        + stats.source() + " were not examined (more than max_lines = " + p.integer("max_lines") + " this run)"));
            }
        } else {
            out.finding(Finding.of("kernel log", Severity.UNKNOWN, readError));
        }
        out.observe(log.build());
        state.put(LATCHED, latched.isEmpty() ? null : new LinkedHashMap<>(latched));
        if (boot != null) {
            state.put(BOOT_ID, boot);
        }
        return out.build();
    }

    /** Reads the {@code patterns:} list; every problem names the item. */
    static List<Rule> rules(Object raw) {
        if (!(raw instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException("'patterns' must be a non-empty list of {regex, severity, message}");
        }
        List<Rule> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "patterns[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException(where + " must be a map {regex, severity, message}");
            }
            for (Object k : m.keySet()) {
                if (!List.of("regex", "severity", "message", "name").contains(String.valueOf(k))) {
                    throw new IllegalArgumentException(where + ": unknown key '" + k + "' (known: regex, severity, message, name)");
                }
            }
            Object regex = m.get("regex");
            if (regex == null || regex.toString().isEmpty()) {
                throw new IllegalArgumentException(where + " needs 'regex'");
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex.toString());
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(where + ".regex is not a valid regular expression: " + e.getDescription()
                        + " near index " + e.getIndex() + " of " + regex);
            }
            String sev = m.get("severity") == null ? "warn" : m.get("severity").toString().toLowerCase(Locale.ROOT);
            Severity severity = switch (sev) {
                case "warn" -> Severity.WARN;
                case "fail" -> Severity.FAIL;
                default -> throw new IllegalArgumentException(where + ".severity must be warn or fail, not '" + sev + "'");
            };
            String message = m.get("message") == null ? "kernel log matched /" + regex + "/" : m.get("message").toString();
            String name = m.get("name") != null ? m.get("name").toString() : m.get("message") != null ? message : regex.toString();
            out.add(new Rule(name, pattern, severity, message));
        }
        return out;
    }

    private static Map<String, Map<String, Object>> loadLatches(ProbeState state) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        if (state.get(LATCHED) instanceof Map<?, ?> m) {
            m.forEach((k, v) -> {
                if (v instanceof Map<?, ?> entry && entry.get("count") instanceof Number) {
                    Map<String, Object> l = new LinkedHashMap<>();
                    entry.forEach((a, b) -> l.put(String.valueOf(a), b));
                    out.put(String.valueOf(k), l);
                }
            });
        }
        return out;
    }

    private static String clip(String s) {
        return s.length() <= TEXT_MAX ? s : s.substring(0, TEXT_MAX) + "…";
    }

    private static final class Match {
        final Rule rule;
        KernelLogLine first;
        KernelLogLine last;
        long count;

        Match(Rule rule) {
            this.rule = rule;
        }

        void add(KernelLogLine line) {
            if (first == null) {
                first = line;
            }
            last = line;
            count++;
        }
    }
}
