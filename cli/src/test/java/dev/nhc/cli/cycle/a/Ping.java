package dev.nhc.cli.cycle.a;

import dev.nhc.cli.cycle.b.Pong;

/** Half of a deliberate package cycle: {@link dev.nhc.cli.PackageCyclesTest} must see it. */
public final class Ping {
    public Pong answer() {
        return new Pong();
    }
}
