package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Durations;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code dcgm.health}: DCGM's own health watches per GPU and health system ({@code dcgmi health -c -j}).
 * DCGM only checks the systems it watches, so when no watches are set this probe sets them
 * ({@code dcgmi health -s a} by default) and asks again. It observes, per entity DCGM names, DCGM's
 * worst result as DCGM numbers it (0 healthy, 10 warning, 20 failure), which systems and DCGM's
 * words; the default rules make 20 FAIL and 10 WARN. When DCGM cannot be asked (not installed, host
 * engine down, output nhc cannot read) the node is unreadable, which the check reports as UNKNOWN
 * with what to install or start.
 */
public final class DcgmHealthProbe implements Probe {
    public static final String NAME = "dcgm.health";

    static final ParamSpec<String> DCGMI = ParamSpec.text("dcgmi", "path of dcgmi (default: settings.dcgmi, then PATH, /usr/bin)")
            .check(DcgmHealthProbe::absolute).names(ParamSpec.PathUse.RUN);
    static final ParamSpec<String> WATCHES = ParamSpec.text("watches",
                    "systems to watch when none are set, as dcgmi health -s letters: p m i d t n x a (all)").defaultValue("a")
            .check(s -> s.matches("[pmidtnxa]+") ? null : "must be dcgmi health -s letters from p m i d t n x a, not '" + s + "'");
    /*
     * The one exception to "a probe only observes" (docs/DESIGN.md): without watches DCGM reports
     * nothing, and a check that passed then would pass a node nobody looked at.
     */
    static final ParamSpec<Boolean> SET_WATCHES = ParamSpec.flag("set_watches",
            "set the watches when DCGM has none; false reports UNKNOWN instead").defaultValue(true);

    private static final ProbeSpec SPEC = ProbeSpec.builder(NAME,
                    "DCGM health watches (dcgmi health -c -j): DCGM's result per GPU and system, 20 failure → fail, 10 warning → warn")
            .tags(Tags.GPU, Tags.DCGM)
            .entities(Entity.Kind.GPU, "the node, and each GPU (or NVSwitch) DCGM reports an incident for")
            .param(DCGMI).param(WATCHES).param(SET_WATCHES)
            .field("overall_health", Unit.TEXT, "node: DCGM's overall health: Healthy, Warning or Failure")
            .field("overall", Unit.COUNT, "node: DCGM's overall result as DCGM numbers it: 0 healthy, 10 warning, 20 failure")
            .field("incidents", Unit.COUNT, "node: systems DCGM reports as not healthy, over all entities")
            .field("health", Unit.COUNT, "DCGM's worst result for this entity: 0 healthy, 10 warning, 20 failure")
            .field("status", Unit.TEXT, "the same in DCGM's words: Healthy, Warning, Failure (or Internal error)")
            .field("systems", Unit.TEXT, "the health systems DCGM does not call healthy, worst first (\"Memory system, PCIe system\")")
            .field("message", Unit.TEXT, "per system, its result and DCGM's message")
            .field("undecided", Unit.BOOLEAN, "DCGM reported a result other than healthy, warning or failure for a system")
            .field("remedy", Unit.TEXT, "reset-gpu when a memory, NVLink or driver system fails (DCGM's advice), else none")
            // The node's summary is known by overall_health, an entity's incidents by their status (DCGM may file one under the node).
            .reportedWith("overall_health", "incidents")
            .reportedWith("status", "systems", "message", "undecided", "remedy")
            // overall and health are absent when DCGM gave a result nhc cannot rank (the undecided rule says so).
            .optional("overall_health", "status", "overall", "health")
            .rule(DefaultRule.fail(Map.of("health", ">= 20"), "{entity}: DCGM {message}").remedyFrom("remedy"))
            .rule(DefaultRule.fail(Map.of("overall", ">= 20", "incidents", 0),
                    "DCGM reports overall health {overall_health} without naming a GPU or system"))
            .rule(DefaultRule.warn(Map.of("health", ">= 10"), "{entity}: DCGM {message}"))
            .rule(DefaultRule.warn(Map.of("overall", ">= 10", "incidents", 0),
                    "DCGM reports overall health {overall_health} without naming a GPU or system"))
            .rule(DefaultRule.unknown(Map.of("undecided", true), "{entity}: DCGM could not judge: {message}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    static String absolute(String path) {
        return path.startsWith("/") ? null : "must be an absolute path, not '" + path + "'";
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Optional<DcgmiOutputs> replay = ctx.service(DcgmiOutputs.class);
        if (replay.isPresent()) {
            Optional<String> capture = replay.get().health();
            if (capture.isEmpty()) {
                return ProbeResult.skipped("replay has no dcgmi health capture (--dcgmi-health-json)");
            }
            return observe(capture.get(), "dcgmi health capture " + replay.get().healthSource());
        }
        Dcgmi dcgmi;
        try {
            dcgmi = Dcgmi.locate(ctx, DCGMI.get(ctx.params()));
        } catch (Dcgmi.DcgmUnavailable e) {
            return unreadable(e.getMessage());
        }
        ProcessRunner.Result o = dcgmi.run(ctx, "health", "-c", "-j");
        String problem = problem(o, "health -c -j", ctx.timeLimit());
        if (problem != null) {
            return unreadable(problem);
        }
        if (watchesNotSet(o)) {
            if (!SET_WATCHES.get(ctx.params())) {
                return unreadable("DCGM has no health watches set, so it checks nothing: run 'dcgmi health -s a' "
                        + "or let nhc set them (with: { set_watches: true })");
            }
            String letters = WATCHES.get(ctx.params());
            ProcessRunner.Result set = dcgmi.run(ctx, "health", "-s", letters);
            String setProblem = problem(set, "health -s " + letters, ctx.timeLimit());
            if (setProblem != null) {
                return unreadable(setProblem);
            }
            if (set.exitCode() != 0 || set.stdout().toLowerCase(Locale.ROOT).contains("error")) {
                return unreadable("DCGM has no health watches set and 'dcgmi health -s " + letters + "' failed: " + Dcgmi.quote(set));
            }
            o = dcgmi.run(ctx, "health", "-c", "-j");
            problem = problem(o, "health -c -j", ctx.timeLimit());
            if (problem != null) {
                return unreadable(problem);
            }
            if (watchesNotSet(o)) {
                return unreadable("DCGM still reports no health watches after 'dcgmi health -s " + letters + "': " + Dcgmi.quote(o));
            }
        }
        if (o.stdout().isBlank()) {
            return unreadable("dcgmi health -c -j printed nothing (exit code " + o.exitCode() + (o.stderr().isBlank() ? "" : ", stderr: "
                    + Dcgmi.quote(o)) + ")");
        }
        return observe(o.stdout(), "dcgmi health -c -j output" + (o.exitCode() != 0 ? " (exit code " + o.exitCode() + ")" : ""));
    }

    /** Timeouts (named by the check's time limit) and an unreachable host engine, worded for the admin; null when dcgmi answered. */
    static String problem(ProcessRunner.Result o, String args, java.time.Duration limit) {
        if (o.timedOut()) {
            return "dcgmi " + args + " did not answer within " + Durations.human(limit) + " and was killed with its processes: "
                    + "the DCGM host engine may be hung (systemctl restart nvidia-dcgm)";
        }
        return Dcgmi.hostEngineProblem(o);
    }

    private static boolean watchesNotSet(ProcessRunner.Result o) {
        String s = (o.stdout() + o.stderr()).toLowerCase(Locale.ROOT);
        return s.contains("watches not enabled") || s.contains("watches not set") || s.contains("no health watches");
    }

    private static ProbeResult observe(String text, String what) {
        DcgmHealthReport report;
        try {
            report = DcgmHealthReport.parse(text, what);
        } catch (DcgmOutputException e) {
            return unreadable(e.getMessage());
        }
        ProbeResult.Builder b = ProbeResult.builder();
        b.observe(Observation.of(Entity.NODE).put("overall_health", report.overall()).put("overall", overallCode(report.overall()))
                .put("incidents", report.incidents().size()).build());
        Map<Entity, List<DcgmHealthReport.Incident>> byEntity = new LinkedHashMap<>();
        for (DcgmHealthReport.Incident i : report.incidents()) {
            byEntity.computeIfAbsent(i.entity(), k -> new ArrayList<>()).add(i);
        }
        byEntity.forEach((entity, incidents) -> b.observe(observation(entity, incidents)));
        return b.build();
    }

    /** DCGM's overall word as its number; an overall DCGM cannot judge is left out (the entities say more). */
    private static Long overallCode(String overall) {
        long c = DcgmHealthReport.code(overall);
        return c == DcgmHealthReport.UNDECIDED ? null : c;
    }

    /** One entity's incidents: the worst result, the systems worst first, DCGM's words for each. */
    private static Observation observation(Entity entity, List<DcgmHealthReport.Incident> incidents) {
        List<DcgmHealthReport.Incident> sorted = new ArrayList<>(incidents);
        sorted.sort(Comparator.comparingLong((DcgmHealthReport.Incident i) -> rank(i.code())).reversed());
        long worst = DcgmHealthReport.PASS;
        boolean undecided = false;
        Remedy remedy = Remedy.NONE;
        List<String> systems = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        for (DcgmHealthReport.Incident i : sorted) {
            long c = i.code();
            undecided |= c == DcgmHealthReport.UNDECIDED;
            worst = Math.max(worst, c);
            if (c == DcgmHealthReport.PASS) {
                continue;
            }
            if (c == DcgmHealthReport.FAIL && resetClears(i.system())) {
                remedy = Remedy.RESET_GPU;
            }
            systems.add(i.system());
            messages.add(i.system() + ": " + i.health().toLowerCase(Locale.ROOT) + (i.message().isBlank() ? "" : ": " + i.message()));
        }
        String status = sorted.isEmpty() ? "Healthy" : sorted.get(0).health();
        // An entity DCGM could not judge at all has no result to compare: only the UNKNOWN rule applies.
        Long health = worst == DcgmHealthReport.PASS && undecided ? null : worst;
        return Observation.of(entity).put("health", health).put("status", status).put("systems", String.join(", ", systems))
                .put("message", String.join("; ", messages)).put("undecided", undecided).put("remedy", remedy.label()).build();
    }

    /** Failure before warning before "could not judge" before healthy. */
    private static int rank(long code) {
        return code == DcgmHealthReport.FAIL ? 3 : code == DcgmHealthReport.WARN ? 2 : code == DcgmHealthReport.UNDECIDED ? 1 : 0;
    }

    /** A failing memory, NVLink or driver system is what a GPU reset clears (DCGM's own advice); the rest is for the admin to judge. */
    private static boolean resetClears(String system) {
        String s = system.toLowerCase(Locale.ROOT);
        return s.startsWith("memory") || s.startsWith("nvlink") || s.startsWith("driver");
    }

    /** DCGM could not be asked, or its answer not read: the check cannot decide, and {@code why} says what to do. */
    static ProbeResult unreadable(String why) {
        return ProbeResult.of(Observation.unreadable(Entity.NODE, why));
    }
}
