package dev.nhc.rules.testing;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.rules.RuleEngine;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A probe judged the way {@code nhc run} judges it, for probe tests: the checks' YAML loaded by the
 * real ConfigLoader (so default rules must compile), planned with the real rule engine, executed
 * by the real PlanExecutor with the system root and state directory in a temp tree, findings
 * settled by the severity policy. State is kept between runs, so a test can run twice and see
 * rates, latches and {@code for:}.
 *
 * <pre>{@code
 * Pipeline p = new Pipeline(root, new ProcessProbe());
 * Verdict v = p.run("- { name: sshd, use: process, with: { name: sshd } }");
 * Finding f = Pipeline.only(v, "sshd");
 * }</pre>
 */
public final class Pipeline {
    private final Path root;
    private final List<Probe> probes;
    private final Map<Class<?>, Object> services = new LinkedHashMap<>();
    private final List<ConfigSection> sections = new ArrayList<>();
    private final StringBuilder sectionText = new StringBuilder();
    private String node = "node001";
    private String settings = "";

    public Pipeline(Path root, Probe... probes) {
        this.root = root;
        this.probes = List.of(probes);
    }

    public <T> Pipeline service(Class<T> type, T value) {
        services.put(type, value);
        return this;
    }

    public Pipeline node(String name) {
        this.node = name;
        return this;
    }

    /** Extra {@code settings:} lines, e.g. {@code "on_unknown: warn"}. */
    public Pipeline settings(String lines) {
        this.settings = lines;
        return this;
    }

    /** A config section the checks' modules contribute, and its lines (e.g. the checks' {@code gpu:} with "amd_smi_library: …"). */
    public Pipeline section(ConfigSection section, String lines) {
        sections.add(section);
        sectionText.append(section.key()).append(":\n").append(indent(lines, "  "));
        return this;
    }

    public Path root() {
        return root;
    }

    /** The plan of these checks (a YAML list, indented or not); throws ConfigException when invalid. */
    public Plan plan(String checks) throws Exception {
        String yaml = "nhc: 1\nsettings:\n  root: " + root + "\n  state_dir: " + root.resolve("var/lib/nhc") + "\n"
                + "  deadline: 30s\n" + indent(settings, "  ") + sectionText + "checks:\n" + indent(checks, "  ");
        return new ConfigLoader(new ProbeRegistry(probes), new RuleEngine(), sections).enforceOwnership(false).parse("nhc.yaml", yaml, null);
    }

    public Verdict run(String checks) throws Exception {
        Plan plan = plan(checks);
        return run(plan, new StateStore(plan.settings().stateDir()));
    }

    /** One run of a plan made once, with a state store of the test's (one that stops its writes, one told the node is held). */
    public Verdict run(Plan plan, StateStore state) {
        return new PlanExecutor(Clock.systemUTC()).run(RunRequest.of(plan, node, state).withServices(services));
    }

    private static String indent(String text, String by) {
        if (text.isBlank()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (String line : text.strip().split("\n")) {
            b.append(by).append(line).append('\n');
        }
        return b.toString();
    }

    public static CheckResult result(Verdict v, String check) {
        for (CheckResult c : v.checks()) {
            if (c.name().equals(check)) {
                return c;
            }
        }
        throw new AssertionError("no check " + check + " in " + v.checks());
    }

    /** The check's findings (PASS included). */
    public static List<Finding> findings(Verdict v, String check) {
        return result(v, check).findings();
    }

    /** The check's one finding; fails when it has none or several. */
    public static Finding only(Verdict v, String check) {
        List<Finding> f = findings(v, check);
        if (f.size() != 1) {
            throw new AssertionError("expected one finding of " + check + ", got " + f);
        }
        return f.get(0);
    }

    /** The check's finding for the entity labelled {@code entity}. */
    public static Finding about(Verdict v, String check, String entity) {
        for (Finding f : findings(v, check)) {
            if (f.entity().label().equals(entity)) {
                return f;
            }
        }
        throw new AssertionError("no finding of " + check + " about " + entity + " in " + findings(v, check));
    }

    public static Severity severity(Verdict v, String check) {
        return result(v, check).severity();
    }
}
