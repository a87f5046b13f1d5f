package dev.nhc.e2e;

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
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The end-to-end suite's remote control (never shipped): reports whether a "cause" file exists, so
 * that the harness makes a check fail or pass by creating or removing a file. It logs each run's
 * start to a file, and holds the run while a "hold" file exists, so the harness can act mid-run.
 */
public final class CauseFileProbe implements Probe {
    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("e2e.cause", "end-to-end test: is the cause file there (test only)")
                .param(ParamSpec.required("path", ParamType.STRING, "the cause file"))
                .param(ParamSpec.optional("runs", ParamType.STRING, null, "file that gets one line per run"))
                .param(ParamSpec.optional("hold", ParamType.STRING, null, "while this file exists, the probe waits"))
                .field("present", Unit.COUNT, "1 when the cause file exists")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        if (ctx.params().has("runs")) {
            Files.writeString(Path.of(ctx.params().string("runs")), Instant.now() + " " + ProcessHandle.current().pid() + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        if (ctx.params().has("hold")) {
            Path hold = Path.of(ctx.params().string("hold"));
            while (Files.exists(hold) && Instant.now().isBefore(ctx.deadline())) {
                Thread.sleep(50);
            }
        }
        long present = Files.exists(Path.of(ctx.params().string("path"))) ? 1 : 0;
        return ProbeResult.of(Observation.of("node").put("present", present).build());
    }
}
