package dev.nhc.engine.testing;

import dev.nhc.probe.ParamSpec;
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
        this(name, timeoutFails, behaviour, new String[0]);
    }

    /** A test probe with these tags; {@code timeoutFails} (not a tag) makes a hang FAIL. */
    public ScriptedProbe(String name, boolean timeoutFails, Behaviour behaviour, String... tags) {
        ProbeSpec.Builder b = ProbeSpec.builder(name, "test probe " + name)
                .tags(tags)
                .param(ParamSpec.integer("value", "a number to report").defaultValue(0L))
                .param(ParamSpec.text("mount", "a path"))
                .param(ParamSpec.integer("count", "expected count"))
                .field("value", Unit.COUNT, "the value")
                .field("used_percent", Unit.PERCENT, "a percentage")
                .field("severity", Unit.TEXT, "what PassThroughRules makes of this observation")
                .field("message", Unit.TEXT, "the message PassThroughRules gives it");
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
