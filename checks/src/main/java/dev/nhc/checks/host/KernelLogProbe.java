package dev.nhc.checks.host;

import dev.nhc.checks.BootLatches;
import dev.nhc.checks.host.KernelLogPatterns.LogPattern;
import dev.nhc.checks.kernel.KernelLogLine;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.checks.kernel.RecordText;
import dev.nhc.checks.kernel.ReadStats;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.probe.Tags;
import dev.nhc.text.BoundedRegex;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code kernel.log}: counts the kernel log lines new since the last run that match each pattern
 * ({@link KernelLogPatterns}: read-only remounts, I/O errors, lockups, OOM, NIC link and firmware
 * faults by default). A {@code fail} pattern that matched is latched: its count is observed on
 * every later run until reboot or {@code nhc clear CHECK} (a filesystem remounted read-only stays
 * so; reporting it once and then passing would resume a drained node); a {@code warn} pattern's
 * count is this run's. The probe observes per pattern its severity and counts; the default rules
 * decide, so a config's {@code fail:}/{@code warn:} replaces them as for any probe.
 */
public final class KernelLogProbe implements Probe {
    static final String LATCHED = "kl.latched";
    static final Entity LOG = KernelLogSpec.LOG_ENTITY;
    private static final int TEXT_MAX = 200;
    private static final Pattern WHEN = Pattern.compile("[\\x20-\\x7e]{0,64}");

    static final ParamSpec<Object> PATTERNS = ParamSpec.any("patterns",
                    "list of {regex, severity: warn|fail, message, name, after_boot, remedy, pci_class}; replaces the defaults "
                            + "(read-only remount, Buffer I/O error, NIC fatal errors, GPU init failed, GPU needs reset, GPU lost and "
                            + "fatal PCIe errors on GPUs and NICs fail; soft lockup, hung task, OOM, machine check, filesystem error, "
                            + "NIC PCIe link degraded, NIC link down, NIC slot power, NIC module temperature, GSP heartbeat lost and "
                            + "non-fatal PCIe errors on GPUs and NICs warn; docs/DESIGN.md lists them). A regex is matched from the start "
                            + "of a kernel record's text (after its timestamp, host and kernel: tag), never inside it, because users put "
                            + "text inside kernel records (a segfaulting program's name): write what the kernel prints first, e.g. "
                            + "'EXT4-fs \\(\\S+\\): Remounting', not '.*Remounting' (refused). after_boot: lines in the first "
                            + "DURATION after boot (by the kernel's own uptime stamp) do not count; remedy: the finding's remedy; pci_class: hex PCI class prefixes "
                            + "(03 display, 02 network, 12 accelerator): only lines whose (?<pci>…) group names such a device count")
            .check(KernelLogPatterns::problem);
    static final ParamSpec<Boolean> LATCH = ParamSpec.flag("latch", "fail patterns keep failing until reboot or nhc clear")
            .defaultValue(true);

    private static final String STAYS = " — stays failing until reboot or `nhc clear {check}`";

    private static final ProbeSpec SPEC = BootLatches.fields(KernelLogSpec.withReader(ProbeSpec.builder("kernel.log",
                    "regex patterns over the kernel log lines new since the last run: read-only remounts, I/O errors, lockups, OOM, "
                            + "and NIC faults — a NIC's PCIe link below its capability (\"available PCIe bandwidth, limited by … "
                            + "(capable of …)\"), link-down flaps (mlx5 \"Link down\", \"NIC Link is Down\", bonding), mlx5 fatal health events (\"health compromised\", \"Fatal error N detected\", "
                            + "\"firmware internal error\", fw_fatal, slot power, module temperature); the NVIDIA driver's faults "
                            + "without an XID (RmInitAdapter failed, reset required, GPU lost, GSP heartbeat lost); uncorrectable PCIe "
                            + "errors (AER) of GPUs and NICs; uncorrectable memory errors (EDAC \"UE\", \"Memory failure\", APEI "
                            + "\"event severity: recoverable\"); the kernel out of file handles (\"VFS: file-max limit N reached\"). Only the kernel's records count, each matched from the start of its text (users "
                            + "put text inside kernel records). See docs/DESIGN.md, XIDs and the kernel log.")
            .tags(Tags.HOST, Tags.KERNEL_LOG, Tags.NETWORK)
            .entities(Entity.Kind.LOG, "one per pattern that matched or is latched (its name, else its message, else its regex), "
                    + "and \"kernel log\" for the reading itself")
            .param(PATTERNS).param(LATCH))
            .field("severity", Unit.TEXT, "the pattern's severity: fail or warn")
            .field("matches", Unit.COUNT, "lines the pattern matched since the last run")
            .field("lines", Unit.COUNT, "lines that count now: since the first match this boot for a latched fail pattern, else this run's")
            .field("summary", Unit.TEXT, "the pattern's message with the count, when, and the last matching line")
            .field("remedy", Unit.TEXT, "the pattern's remedy: none, restart-app, reset-gpu, reboot or hardware")
            .field("source", Unit.TEXT, "kernel log: where it was read (/dev/kmsg, journal, or a file)")
            .field("regex_gave_up", Unit.COUNT, "kernel log: lines a pattern's regex gave up on (it went past its bound "
                    + "of work): not judged by that pattern")
            .field("regex_problem", Unit.TEXT, "kernel log: which patterns gave up, on how many lines")
            // The patterns and the reading are both entities of kind LOG: a pattern is known by its severity, the reading by its source.
            .reportedWith("severity", "matches", "lines", "summary", "remedy")
            .reportedWith("source", "regex_gave_up")
            .reportedWith("source", KernelLogSpec.READER_FIELDS)
            .optional("severity", "source", "regex_problem", "cursor_problem")
            .rule(DefaultRule.fail(Map.of("severity", "fail", "lines", "> 0"), "{summary}" + STAYS).when(LATCH.name(), true).remedyFrom("remedy")
                    .latches())
            .rule(DefaultRule.fail(Map.of("severity", "fail", "lines", "> 0"), "{summary}").when(LATCH.name(), false).remedyFrom("remedy"))
            .rule(DefaultRule.warn(Map.of("severity", "warn", "lines", "> 0"), "{summary}").remedyFrom("remedy"))
            .rule(DefaultRule.warn(Map.of("skipped_lines", "> 0"), "{skipped_lines} new kernel log {skipped_lines|line|lines} in {source} {skipped_lines|was|were} not examined "
                    + "(more than max_lines = {with.max_lines} this run)"))
            .rule(DefaultRule.warn(Map.of("lost_records", "> 0"), "{lost_records} kernel log {lost_records|record was|records were} overwritten before nhc read them"))
            // A catastrophic regex over a line a user shaped: the line was skipped, the reading went on.
            .rule(DefaultRule.warn(Map.of("regex_gave_up", "> 0"), "{regex_problem}")),
            "kernel log", "latched kernel log matches", "fail patterns that matched earlier this boot", "the kernel log")
            .reportedWith("source", "state_lost")
            .optional(BootLatches.OPTIONAL_FIELDS).build();

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
        List<LogPattern> patterns = PATTERNS.isSetIn(ctx.params()) ? KernelLogPatterns.parse(PATTERNS.get(ctx.params()))
                : KernelLogPatterns.DEFAULTS;
        boolean latch = LATCH.get(ctx.params());
        ProbeState state = ctx.state();
        String boot = KernelLogReader.bootId(ctx);
        Latches latched = Latches.load(state, boot);

        Map<String, Match> matches = new LinkedHashMap<>();
        Map<String, Long> gaveUp = new LinkedHashMap<>();
        PciClass pci = new PciClass(ctx);
        ReadStats stats = null;
        String readError = null;
        try {
            stats = KernelLogSpec.reader(ctx).read(new KernelLogReader.Sink() {
                @Override
                public void line(KernelLogLine line) {
                    if (!RecordText.decides(line)) {
                        return;
                    }
                    for (LogPattern p : patterns) {
                        BoundedRegex.Result r = BoundedRegex.lookingAt(p.regex(), line.message());
                        if (r == BoundedRegex.Result.GAVE_UP) {
                            gaveUp.merge(p.name(), 1L, Long::sum);
                        } else if (r.matched() && counts(p, line) && pci.counts(p, line.message())) {
                            matches.computeIfAbsent(p.name(), k -> new Match()).add(line);
                        }
                    }
                }

                @Override
                public void earlierBoot() {
                    matches.clear();
                }
            });
        } catch (IOException e) {
            readError = e.getMessage();
        }

        ProbeResult.Builder out = ProbeResult.builder();
        for (LogPattern p : patterns) {
            Match m = matches.get(p.name());
            boolean latching = latch && p.fails();
            if (m != null && latching) {
                latched.add(p.name(), m.count, m.first.when(), clip(m.last.message()));
            }
            Latch l = latching ? latched.get(p.name()) : null;
            if (m == null && l == null) {
                continue; // only patterns with something to say are entities: a quiet log reads as one "ok"
            }
            long lines = l != null ? l.count() : m.count;
            Observation.Builder o = Observation.of(Entity.of(Entity.Kind.LOG, p.name())).put("severity", p.severity())
                    .put("remedy", p.remedy().label())
                    .put("matches", m == null ? 0L : m.count).put("lines", lines).put("summary", summary(p, m, l));
            out.observe(o.build());
        }
        latched.retain(latch ? patterns.stream().filter(LogPattern::fails).map(LogPattern::name).toList() : List.of());

        if (readError != null) {
            out.observe(Observation.unreadable(LOG, readError));
        } else {
            Observation.Builder log = latched.store.observe(Observation.of(LOG).put("source", stats.source()))
                    .put("regex_gave_up", gaveUp.values().stream().mapToLong(Long::longValue).sum())
                    .put("regex_problem", gaveUp.isEmpty() ? null : gaveUpText(gaveUp));
            KernelLogSpec.putStats(log, stats);
            out.observe(log.build());
        }
        latched.save(state, boot);
        return out.build();
    }

    /**
     * Whether a matching line counts: not when the pattern ignores the first minutes after boot and
     * the kernel's own uptime stamp says the line is from then. A line without one (a syslog line
     * whose daemon dropped the stamp) counts: a wall-clock time cannot place it, the clock may have
     * been stepped since.
     */
    private static boolean counts(LogPattern p, KernelLogLine line) {
        Double uptime = line.uptimeSeconds();
        return p.afterBoot() == null || uptime == null || uptime >= p.afterBoot().toMillis() / 1000.0;
    }

    /** "the regex of pattern 'x' gave up on 3 lines (it read more than …): not judged by it; …". */
    private static String gaveUpText(Map<String, Long> gaveUp) {
        StringBuilder b = new StringBuilder();
        gaveUp.forEach((name, n) -> b.append(b.length() == 0 ? "" : "; ").append("the regex of pattern '").append(clip(name))
                .append("' gave up on ").append(n).append(n == 1 ? " line" : " lines"));
        return b.append(" (it read more than ").append(BoundedRegex.BOUND).append("): not judged by it; write the regex without "
                + "nested or leading wildcards").toString();
    }

    /** "a filesystem was remounted read-only: 1 line since 2026-11-22T04:00:00Z, last: EXT4-fs (nvme0n1p2): Remounting …". */
    private static String summary(LogPattern p, Match m, Latch l) {
        StringBuilder msg = new StringBuilder(p.message());
        if (l != null) {
            msg.append(": ").append(l.count()).append(l.count() == 1 ? " line" : " lines").append(" since ").append(l.first())
                    .append(", last: ").append(l.line());
        } else {
            msg.append(": ").append(m.count).append(m.count == 1 ? " line" : " lines").append(" since the last run, last");
            if (!m.last.when().isEmpty()) {
                msg.append(" at ").append(m.last.when());
            }
            msg.append(": ").append(clip(m.last.message()));
        }
        return msg.toString();
    }

    private static String clip(String s) {
        return s.length() <= TEXT_MAX ? s : s.substring(0, TEXT_MAX) + "…";
    }

    /** One latched fail pattern: lines since its first match this boot, when that was, the last line. */
    record Latch(long count, String first, String line) {
    }

    /**
     * The latched fail patterns of this boot in the one latch store ({@link BootLatches}, keys
     * {@code kl.*}), read back with every value checked; what does not hold up is dropped and the
     * loss kept until reboot or {@code nhc clear}, so it is observed, not silent.
     */
    private static final class Latches {
        final Map<String, Latch> byName = new LinkedHashMap<>();
        private final BootLatches store;

        private Latches(BootLatches store) {
            this.store = store;
        }

        static Latches load(ProbeState state, String bootId) {
            Latches l = new Latches(BootLatches.load(state, "kl", bootId));
            Object saved = l.store.saved();
            if (saved == null) {
                return l;
            }
            if (!(saved instanceof Map<?, ?> m)) {
                l.store.lost("state value " + LATCHED + " is not a map");
                return l;
            }
            int bad = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                Latch latch = e.getValue() instanceof Map<?, ?> entry ? read(entry) : null;
                if (latch == null) {
                    bad++;
                } else {
                    l.byName.put(String.valueOf(e.getKey()), latch);
                }
            }
            if (bad > 0) {
                l.store.lost(bad + (bad == 1 ? " saved entry is" : " saved entries are") + " damaged");
            }
            return l;
        }

        private static Latch read(Map<?, ?> m) {
            if (!(m.get("count") instanceof Number n) || n.longValue() < 1) {
                return null;
            }
            Object first = m.get("first");
            Object line = m.get("line");
            if (!(first instanceof String f && WHEN.matcher(f).matches()) || !(line instanceof String s && s.length() <= TEXT_MAX + 1)) {
                return null;
            }
            return new Latch(n.longValue(), f, s);
        }

        Latch get(String name) {
            return byName.get(name);
        }

        void add(String name, long count, String first, String line) {
            Latch old = byName.get(name);
            byName.put(name, old == null ? new Latch(count, first, line) : new Latch(old.count() + count, old.first(), line));
        }

        void retain(List<String> names) {
            byName.keySet().retainAll(names);
        }

        void save(ProbeState state, String bootId) {
            Map<String, Object> out = new LinkedHashMap<>();
            byName.forEach((name, l) -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("count", l.count());
                m.put("first", l.first());
                m.put("line", l.line());
                out.put(name, m);
            });
            store.save(state, out.isEmpty() ? null : out, bootId);
        }
    }

    private static final class Match {
        KernelLogLine first;
        KernelLogLine last;
        long count;

        void add(KernelLogLine line) {
            if (first == null) {
                first = line;
            }
            last = line;
            count++;
        }
    }
}
