package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.List;
import java.util.Map;

/**
 * {@code systemd.unit}: whether a unit is active, from
 * {@code systemctl show -p ActiveState,SubState,LoadState -- UNIT}. No systemctl, or a systemctl
 * that cannot talk to systemd (a container), leaves the unit unreadable (UNKNOWN, with the reason).
 * What the states mean for the check (failed, not found, still starting) is its default rules'.
 */
public final class SystemdUnitProbe implements Probe {
    private static final String DESCRIBED = "{entity} is {active_state} ({sub_state})";

    static final ParamSpec<String> UNIT = ParamSpec.text("unit", "unit name, e.g. sshd.service").required();
    static final ParamSpec<String> STATE = ParamSpec.choice("state", "whether it must be active or inactive", "active", "inactive")
            .defaultValue("active");
    static final ParamSpec<String> SYSTEMCTL = ParamSpec.text("systemctl", "systemctl executable (a path, or a name looked up in "
            + Executables.searched("systemctl") + ")").defaultValue("systemctl").names(ParamSpec.PathUse.RUN);

    private static final ProbeSpec SPEC = ProbeSpec.builder("systemd.unit", "a systemd unit is active (or inactive)")
            .tags(Tags.HOST)
            .entities(Entity.Kind.SERVICE, "the unit")
            .param(UNIT)
            .param(STATE)
            .param(SYSTEMCTL)
            .field("active_state", Unit.TEXT, "ActiveState (active, failed, inactive, activating…)")
            .field("sub_state", Unit.TEXT, "SubState (running, dead, exited…)")
            .field("load_state", Unit.TEXT, "LoadState (loaded, not-found…)")
            .field("active", Unit.BOOLEAN, "whether its processes run or are being started (ActiveState active, reloading, activating or refreshing)")
            .rule(DefaultRule.fail(Map.of("load_state", "not-found"), "unit {entity} not found (LoadState not-found)")
                    .when("state", "active"))
            .rule(DefaultRule.fail(Map.of("active", false), "unit " + DESCRIBED + ", expected active").when("state", "active"))
            .rule(DefaultRule.warn(List.of(Map.of("active_state", "activating"), Map.of("active_state", "refreshing")),
                    "unit " + DESCRIBED + ", not yet active").when("state", "active"))
            .rule(DefaultRule.fail(Map.of("active", true), "unit " + DESCRIBED + ", expected inactive").when("state", "inactive"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws InterruptedException {
        Params p = ctx.params();
        String unit = UNIT.get(p);
        String tool = SYSTEMCTL.get(p);
        Entity entity = Entity.of(Entity.Kind.SERVICE, unit);
        try {
            return ProbeResult.of(SystemdUnits.show(tool, unit, ctx.remaining()).observe(Observation.of(entity)).build());
        } catch (SystemdUnits.Unreadable e) {
            return unreadable(entity, e.getMessage());
        }
    }

    private static ProbeResult unreadable(Entity unit, String why) {
        return ProbeResult.of(Observation.unreadable(unit, why));
    }
}
