package dev.nhc.cli.testprobes;

import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;

/** Hangs and ignores interrupts, like a thread stuck in a native call on a lost GPU. Loaded only by the CLI's process tests. */
public final class HangProbe implements Probe {
    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("test.hang", "hangs forever (test only)").build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                // a native call does not notice interrupts either
            }
        }
    }
}
