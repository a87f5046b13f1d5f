package dev.nhc.scripts;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.PriorObservations;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One-shot cost of a script.js check, measured from outside ({@code time java ... LoadCostMain js}):
 * {@code none} loads the probe registry only, {@code script} also runs /bin/true through the
 * script probe, {@code js} runs a two-GPU thermal/power rule through script.js.
 */
public final class LoadCostMain {
    private LoadCostMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "none";
        ProbeRegistry registry = ProbeRegistry.load();
        registry.all().values().forEach(p -> p.spec());
        TestProbeContext ctx = new TestProbeContext(Path.of("/")).budget(Duration.ofSeconds(30));
        ProbeResult r = null;
        if (mode.equals("script")) {
            r = registry.find("script").orElseThrow().probe(ctx.params(Map.of("command", List.of("/bin/true"), "convention", "nhc",
                    "max_output", 1024L)));
        } else if (mode.equals("js")) {
            ctx.service(PriorObservations.class, prior(Map.of("gpus", List.of(
                    Observation.of(Entity.gpu(0, null)).put("temperature", 91L).put("power", 120.0).build(),
                    Observation.of(Entity.gpu(1, null)).put("temperature", 50L).put("power", 300.0).build()))));
            r = registry.find("script.js").orElseThrow().probe(ctx.params(Map.of("timeout", Duration.ofSeconds(20), "allow_read", List.of(),
                    "source", "Object.entries(observations.gpus).filter(([g, f]) => f.temperature > 85 && f.power < 150)"
                            + ".map(([g, f]) => ({entity: g, severity: 'warn', message: g + ' hot at low power'}))")));
        }
        System.out.println(mode + ": " + (r == null ? "-" : r.observations()));
    }

    private static PriorObservations prior(Map<String, List<Observation>> byCheck) {
        return () -> byCheck;
    }
}
