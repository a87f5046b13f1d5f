package dev.nhc.cli;

import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.Settings;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
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
    @Parameters(arity = "0..*", paramLabel = "PROBE", description = "Only these probes (e.g. disk.usage gpu.ecc).")
    List<String> names = new ArrayList<>();

    @Option(names = "--names", description = "Print only the probe names, one per line.")
    boolean namesOnly;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        ProbeRegistry registry = ProbeRegistry.load();
        PrintStream out = System.out;
        for (String n : names) {
            if (registry.find(n).isEmpty()) {
                System.err.println("nhc: no probe named '" + n + "'" + dev.nhc.engine.config.Suggest.didYouMean(n, registry.names()));
                return ExitCodes.INVALID;
            }
        }
        if (namesOnly) {
            registry.names().forEach(out::println);
            return ExitCodes.OK;
        }
        for (Probe p : registry.all().values()) {
            if (names.isEmpty() || names.contains(p.spec().name())) {
                printProbe(out, p.spec());
            }
        }
        if (names.isEmpty()) {
            out.println("Keys of a check (under checks:)");
            printParams(out, ConfigLoader.checkKeys());
            out.println();
            out.println("settings:");
            printParams(out, Settings.SPEC);
            for (ConfigSection s : ServiceLoader.load(ConfigSection.class)) {
                out.println();
                out.println(s.key() + ":  " + s.description());
                printParams(out, s.params());
            }
        }
        return ExitCodes.OK;
    }

    private static void printProbe(PrintStream out, ProbeSpec s) {
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
            out.println("  fields:");
            for (FieldSpec f : s.fields()) {
                out.printf(Locale.ROOT, "    %-28s %-8s %s%n", f.name(), unitLabel(f.unit()), f.description());
            }
        }
        if (!s.defaultRules().isEmpty()) {
            out.println("  default rules (a check's warn: or fail: replaces those of its severity; unknown rules stay):");
            for (DefaultRule r : s.defaultRules()) {
                out.println("    " + RuleText.of(r));
            }
        }
        out.println();
    }

    private static void printParams(PrintStream out, List<ParamSpec<?>> params) {
        for (ParamSpec<?> p : params) {
            String def = p.isRequired() ? "required" : p.defaultValue() == null ? "optional" : "default " + show(p.defaultValue());
            String type = p.allowed().isEmpty() ? p.type().label() : String.join("|", p.allowed());
            out.printf(Locale.ROOT, "    %-20s %-22s %-16s %s%n", p.name(), type, def, p.description());
        }
    }

    private static String show(Object v) {
        if (v instanceof Duration d) {
            return PlanExecutor.human(d);
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
