package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code dcgm.health}: DCGM's own verdict per GPU and health system ({@code dcgmi health -c -j}).
 * DCGM only checks the systems it watches, so when no watches are set this probe sets them
 * ({@code dcgmi health -s a} by default) and asks again. DCGM's Warning and Failure become WARN
 * and FAIL findings on the GPU, naming the system and carrying DCGM's message; when DCGM cannot
 * be asked (not installed, host engine down, output nhc cannot read) the check is UNKNOWN with
 * what to install or start.
 */
public final class DcgmHealthProbe implements Probe {
    public static final String NAME = "dcgm.health";

    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder(NAME, "DCGM health watches (dcgmi health -c -j): DCGM's PASS/WARN/FAIL per GPU and system")
                .entities("the node, and each GPU (or NVSwitch) DCGM reports an incident for")
                .param(ParamSpec.optional("dcgmi", ParamType.STRING, null, "path of dcgmi (default: settings.dcgmi, then PATH, /usr/bin)"))
                .param(ParamSpec.optional("watches", ParamType.STRING, "a",
                        "systems to watch when none are set, as dcgmi health -s letters: p m i d t n x a (all)"))
                .param(ParamSpec.optional("set_watches", ParamType.BOOLEAN, true,
                        "set the watches when DCGM has none; false reports UNKNOWN instead"))
                .field("overall_health", Unit.TEXT, "DCGM's overall health: Healthy, Warning or Failure")
                .field("incidents", Unit.COUNT, "systems DCGM reports as not healthy, over all entities")
                .field("health", Unit.TEXT, "per entity: DCGM's worst result for it")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Optional<DcgmiOutputs> replay = ctx.service(DcgmiOutputs.class);
        if (replay.isPresent()) {
            Optional<String> capture = replay.get().health();
            if (capture.isEmpty()) {
                return ProbeResult.skipped("replay has no dcgmi health capture (--dcgmi-health-json)");
            }
            return judge(capture.get(), "dcgmi health capture " + replay.get().healthSource());
        }
        Dcgmi dcgmi;
        try {
            dcgmi = Dcgmi.locate(ctx);
        } catch (Dcgmi.DcgmUnavailable e) {
            return unknown(e.getMessage());
        }
        ProcessRunner.Result o = dcgmi.run(ctx, "health", "-c", "-j");
        String problem = problem(o, "health -c -j");
        if (problem != null) {
            return unknown(problem);
        }
        if (watchesNotSet(o)) {
            if (!Boolean.TRUE.equals(ctx.params().bool("set_watches"))) {
                return unknown("DCGM has no health watches set, so it checks nothing: run 'dcgmi health -s a' "
                        + "or let nhc set them (with: { set_watches: true })");
            }
            String letters = ctx.params().string("watches");
            if (letters == null || !letters.matches("[pmidtnxa]+")) {
                return unknown("with: { watches: '" + letters + "' } must be dcgmi health -s letters from p m i d t n x a");
            }
            ProcessRunner.Result set = dcgmi.run(ctx, "health", "-s", letters);
            String setProblem = problem(set, "health -s " + letters);
            if (setProblem != null) {
                return unknown(setProblem);
            }
            if (set.exitCode() != 0 || set.stdout().toLowerCase(Locale.ROOT).contains("error")) {
                return unknown("DCGM has no health watches set and 'dcgmi health -s " + letters + "' failed: " + Dcgmi.quote(set));
            }
            o = dcgmi.run(ctx, "health", "-c", "-j");
            problem = problem(o, "health -c -j");
            if (problem != null) {
                return unknown(problem);
            }
            if (watchesNotSet(o)) {
                return unknown("DCGM still reports no health watches after 'dcgmi health -s " + letters + "': " + Dcgmi.quote(o));
            }
        }
        if (o.stdout().isBlank()) {
            return unknown("dcgmi health -c -j printed nothing (exit code " + o.exitCode() + (o.stderr().isBlank() ? "" : ", stderr: "
                    + Dcgmi.quote(o)) + ")");
        }
        return judge(o.stdout(), "dcgmi health -c -j output" + (o.exitCode() != 0 ? " (exit code " + o.exitCode() + ")" : ""));
    }

    /** Timeouts and an unreachable host engine, worded for the admin; null when dcgmi answered. */
    static String problem(ProcessRunner.Result o, String args) {
        if (o.timedOut()) {
            return "dcgmi " + args + " did not answer within " + o.elapsed().toMillis() / 1000.0 + " s and was killed with its processes: "
                    + "the DCGM host engine may be hung (systemctl restart nvidia-dcgm)";
        }
        return Dcgmi.hostEngineProblem(o);
    }

    private static boolean watchesNotSet(ProcessRunner.Result o) {
        String s = (o.stdout() + o.stderr()).toLowerCase(Locale.ROOT);
        return s.contains("watches not enabled") || s.contains("watches not set") || s.contains("no health watches");
    }

    private static ProbeResult judge(String text, String what) {
        DcgmHealthReport report;
        try {
            report = DcgmHealthReport.parse(text, what);
        } catch (DcgmOutputException e) {
            return unknown(e.getMessage());
        }
        ProbeResult.Builder b = ProbeResult.builder();
        b.observe(Observation.of("node").put("overall_health", report.overall()).put("incidents", report.incidents().size()).build());
        Map<String, Severity> worst = new LinkedHashMap<>();
        Map<String, String> worstLabel = new LinkedHashMap<>();
        for (DcgmHealthReport.Incident i : report.incidents()) {
            Severity s = i.severity();
            if (!worst.containsKey(i.entity()) || s.ordinal() > worst.get(i.entity()).ordinal()) {
                worst.put(i.entity(), s);
                worstLabel.put(i.entity(), i.health());
            }
            if (s == Severity.PASS) {
                continue;
            }
            String msg = "DCGM " + i.system() + ": " + i.health().toLowerCase(Locale.ROOT)
                    + (i.message().isBlank() ? "" : ": " + i.message());
            b.finding(new Finding(null, i.entity(), s, msg, remedy(i), null,
                    Map.of("system", i.system(), "health", i.health())));
        }
        worstLabel.forEach((entity, label) -> b.observe(Observation.of(entity).put("health", label).build()));
        Severity overall = DcgmHealthReport.severity(report.overall());
        if (overall != Severity.PASS && report.incidents().isEmpty()) {
            b.finding(Finding.of("node", overall, "DCGM reports overall health " + report.overall() + " without naming a GPU or system"));
        }
        return b.build();
    }

    /** A failing memory, NVLink or driver system is what a GPU reset clears (DCGM's own advice); the rest is for the admin to judge. */
    private static Remedy remedy(DcgmHealthReport.Incident i) {
        if (i.severity() != Severity.FAIL) {
            return Remedy.NONE;
        }
        String s = i.system().toLowerCase(Locale.ROOT);
        return s.startsWith("memory") || s.startsWith("nvlink") || s.startsWith("driver") ? Remedy.RESET_GPU : Remedy.NONE;
    }

    static ProbeResult unknown(String why) {
        return ProbeResult.builder().finding(Finding.of("node", Severity.UNKNOWN, why)).build();
    }
}
