package dev.nhc.cli.testprobes;

import dev.nhc.model.Observation;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
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
    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("test.wait", "waits for a file, then reports a value (test only)")
                .param(ParamSpec.optional("until", ParamType.STRING, null, "file whose existence ends the wait"))
                .param(ParamSpec.optional("started", ParamType.STRING, null, "file created when the probe starts"))
                .param(ParamSpec.optional("value", ParamType.INTEGER, 0L, "the value to report"))
                .field("value", Unit.COUNT, "the value")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        if (ctx.params().has("started")) {
            Files.writeString(Path.of(ctx.params().string("started")), "started");
        }
        if (ctx.params().has("until")) {
            Path until = Path.of(ctx.params().string("until"));
            while (!Files.exists(until)) {
                Thread.sleep(20);
            }
        }
        return ProbeResult.of(Observation.of("node").put("value", ctx.params().integer("value")).build());
    }
}
