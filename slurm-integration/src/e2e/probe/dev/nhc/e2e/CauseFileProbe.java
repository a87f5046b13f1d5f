package dev.nhc.e2e;

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
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The end-to-end suite's remote control (never shipped): reports whether a "cause" file exists, so
 * that the harness makes a check fail or pass by creating or removing a file. It logs each run's
 * start to a file, and holds the run while a "hold" file exists, so the harness can act mid-run.
 */
public final class CauseFileProbe implements Probe {
    private static final ParamSpec<String> PATH = ParamSpec.text("path", "the cause file").required();
    private static final ParamSpec<String> RUNS = ParamSpec.text("runs", "file that gets one line per run");
    private static final ParamSpec<String> HOLD = ParamSpec.text("hold", "while this file exists, the probe waits");

    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("e2e.cause", "end-to-end test: is the cause file there (test only)")
                .param(PATH)
                .param(RUNS)
                .param(HOLD)
                .field("present", Unit.COUNT, "1 when the cause file exists")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        if (RUNS.get(ctx.params()) != null) {
            Files.writeString(Path.of(RUNS.get(ctx.params())), Instant.now() + " " + ProcessHandle.current().pid() + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        if (HOLD.get(ctx.params()) != null) {
            Path hold = Path.of(HOLD.get(ctx.params()));
            while (Files.exists(hold) && Instant.now().isBefore(ctx.deadline())) {
                Thread.sleep(50);
            }
        }
        long present = Files.exists(Path.of(PATH.get(ctx.params()))) ? 1 : 0;
        return ProbeResult.of(Observation.of(Entity.NODE).put("present", present).build());
    }
}
