package dev.nhc.cli.cycle.b;

import dev.nhc.cli.cycle.a.Ping;

/** The other half of the deliberate package cycle. */
public final class Pong {
    public Ping answer() {
        return new Ping();
    }
}
