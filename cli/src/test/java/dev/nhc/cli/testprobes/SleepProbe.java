package dev.nhc.cli.testprobes;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reports {@code value} after waiting until a file appears (or its timeout), so that a test holds a
 * run open for exactly as long as it needs. Loaded only by the CLI's process tests.
 */
public final class SleepProbe implements Probe {
    private static final ParamSpec<String> UNTIL = ParamSpec.text("until", "file whose existence ends the wait");
    private static final ParamSpec<String> STARTED = ParamSpec.text("started", "file created when the probe starts");
    private static final ParamSpec<Long> VALUE = ParamSpec.integer("value", "the value to report").defaultValue(0L);

    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("test.wait", "waits for a file, then reports a value (test only)")
                .param(UNTIL)
                .param(STARTED)
                .param(VALUE)
                .field("value", Unit.COUNT, "the value")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        if (STARTED.get(ctx.params()) != null) {
            Files.writeString(Path.of(STARTED.get(ctx.params())), "started");
        }
        if (UNTIL.get(ctx.params()) != null) {
            Path until = Path.of(UNTIL.get(ctx.params()));
            while (!Files.exists(until)) {
                Thread.sleep(20);
            }
        }
        return ProbeResult.of(Observation.of(Entity.NODE).put("value", VALUE.get(ctx.params())).build());
    }
}
