package dev.nhc.engine.testing;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

/** A probe whose behaviour a test supplies as a lambda, for runner and loader tests that need no real system. */
public final class ScriptedProbe implements Probe {
    public interface Behaviour {
        ProbeResult probe(ProbeContext ctx) throws Exception;
    }

    private final ProbeSpec spec;
    private final Behaviour behaviour;

    public ScriptedProbe(String name, boolean timeoutFails, Behaviour behaviour) {
        ProbeSpec.Builder b = ProbeSpec.builder(name, "test probe " + name)
                .param(ParamSpec.optional("value", ParamType.INTEGER, 0L, "a number to report"))
                .param(ParamSpec.optional("mount", ParamType.STRING, null, "a path"))
                .param(ParamSpec.optional("count", ParamType.INTEGER, null, "expected count"))
                .field("value", Unit.COUNT, "the value")
                .field("used_percent", Unit.PERCENT, "a percentage");
        if (timeoutFails) {
            b.timeoutFails();
        }
        this.spec = b.build();
        this.behaviour = behaviour;
    }

    public ScriptedProbe(ProbeSpec spec, Behaviour behaviour) {
        this.spec = spec;
        this.behaviour = behaviour;
    }

    @Override
    public ProbeSpec spec() {
        return spec;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        return behaviour.probe(ctx);
    }
}
