package dev.nhc.cli;

import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.Settings;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Durations;
import dev.nhc.units.Unit;
import dev.nhc.engine.plan.SiteJars;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

@Command(name = "list", description = {"Document every probe: what it takes under 'with:', what it observes (fields "
        + "with units, usable in 'warn:' and 'fail:'), and its default rules. Also the keys of a check, of 'settings:' "
        + "and of the integrations' sections."})
final class ListCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    /** What {@code nhc list TOPIC} documents besides probes: the keys of a check and of settings:. */
    private static final String CHECK = "check";
    private static final String SETTINGS = "settings";

    @Parameters(arity = "0..*", paramLabel = "TOPIC", description = "Only these probes (e.g. disk.usage gpu.ecc), each with the "
            + "reference tables it judges by (gpu.xid: NVIDIA's XID and SXid catalogues; dcgm.diag: DCGM's error codes), or the "
            + "keys of 'check', 'settings' or a section such as 'slurm'.")
    List<String> names = new ArrayList<>();

    @Option(names = "--names", description = "Print only the probe names, one per line.")
    boolean namesOnly;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        ProbeRegistry registry = ProbeRegistry.load();
        PrintWriter out = io.out();
        List<ConfigSection> sections = new ArrayList<>();
        ServiceLoader.load(ConfigSection.class, SiteJars.loader()).forEach(sections::add);
        List<String> topics = new ArrayList<>(registry.names());
        topics.add(CHECK);
        topics.add(SETTINGS);
        sections.forEach(sec -> topics.add(sec.key()));
        for (String n : names) {
            if (!topics.contains(n)) {
                io.err().println("nhc: no probe or topic named '" + n + "'" + dev.nhc.engine.config.Suggest.didYouMean(n, topics)
                        + " (topics besides probes: " + String.join(", ", topics.subList(registry.names().size(), topics.size())) + ")");
                return ExitCodes.INVALID;
            }
        }
        if (namesOnly) {
            registry.names().forEach(out::println);
            return ExitCodes.OK;
        }
        for (Probe p : registry.all().values()) {
            if (wanted(p.spec().name())) {
                printProbe(out, p.spec());
            }
            if (names.contains(p.spec().name())) {
                List<String> reference = p.reference();
                reference.forEach(l -> out.println("  " + l));
                if (!reference.isEmpty()) {
                    out.println();
                }
            }
        }
        if (wanted(CHECK)) {
            out.println("Keys of a check (under checks:)");
            printParams(out, ConfigLoader.checkKeys());
            out.println();
        }
        if (wanted(SETTINGS)) {
            out.println("settings:");
            printParams(out, Settings.SPEC);
            out.println();
        }
        for (ConfigSection sec : sections) {
            if (wanted(sec.key())) {
                out.println(sec.key() + ":  " + sec.description());
                printParams(out, sec.params());
                out.println();
            }
        }
        return ExitCodes.OK;
    }

    /** Everything when no topic is named. */
    private boolean wanted(String topic) {
        return names.isEmpty() || names.contains(topic);
    }

    private static void printProbe(PrintWriter out, ProbeSpec s) {
        out.println(s.name());
        out.println("  " + s.description());
        out.println("  entities: " + s.entities() + " (" + s.entityKind().label() + ")"
                + (s.timeoutFails() ? "; a probe that hangs FAILS the check" : ""));
        if (!s.tags().isEmpty()) {
            out.println("  tags: " + String.join(", ", s.tags()));
        }
        java.util.Set<GpuVendor> vendors = GpuVendor.supportedBy(s);
        if (!vendors.isEmpty()) {
            out.println("  GPU vendors: " + String.join(", ", vendors.stream().map(v -> v.displayName() + " (" + v.library() + ")").toList())
                    + "; skipped on a host without their GPUs");
        }
        if (!s.params().isEmpty()) {
            out.println("  with:");
            printParams(out, s.params());
        }
        if (!s.fields().isEmpty()) {
            out.println("  fields (a rule over one that is not reported is unknown, unless it is marked 'may be absent'):");
            for (FieldSpec f : s.fields()) {
                out.printf(Locale.ROOT, "    %-28s %-8s %s%s%n", f.name(), unitLabel(f.unit()), f.description(),
                        f.optional() ? " [may be absent]" : "");
            }
        }
        if (!s.defaultRules().isEmpty()) {
            out.println("  default rules (a check's warn: or fail: replaces those of its severity; unknown rules stay):");
            for (DefaultRule r : s.defaultRules()) {
                out.println("    " + RuleText.of(r, s) + RuleText.whenItApplies(r, s));
            }
        }
        out.println();
    }

    private static void printParams(PrintWriter out, List<ParamSpec<?>> params) {
        for (ParamSpec<?> p : params) {
            String def = p.isRequired() ? "required" : p.defaultValue() == null ? "optional" : "default " + show(p.defaultValue());
            String type = p.allowed().isEmpty() ? p.type().label() : String.join("|", p.allowed());
            out.printf(Locale.ROOT, "    %-20s %-22s %-16s %s%n", p.name(), type, def, p.description());
        }
    }

    private static String show(Object v) {
        if (v instanceof Duration d) {
            return Durations.human(d);
        }
        return String.valueOf(v);
    }

    private static String unitLabel(Unit u) {
        return switch (u) {
            case BOOLEAN -> "bool";
            case TEXT -> "text";
            case COUNT -> "count";
            case BYTES -> "bytes";
            default -> u.symbol();
        };
    }
}
