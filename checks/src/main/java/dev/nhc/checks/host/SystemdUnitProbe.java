package dev.nhc.checks.host;

import dev.nhc.engine.process.ProcessRunner;
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

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code systemd.unit}: whether a unit is active, from
 * {@code systemctl show -p ActiveState,SubState,LoadState -- UNIT}. No systemctl, or a systemctl
 * that cannot talk to systemd (a container), leaves the unit unreadable (UNKNOWN, with the reason).
 * What the states mean for the check (failed, not found, still starting) is its default rules'.
 */
public final class SystemdUnitProbe implements Probe {
    /** ActiveStates in which the unit's processes run (or are being started): a "running" unit. */
    private static final Set<String> RUNNING = Set.of("active", "reloading", "activating", "refreshing");
    private static final String DESCRIBED = "{entity} is {active_state} ({sub_state})";

    static final ParamSpec<String> UNIT = ParamSpec.text("unit", "unit name, e.g. sshd.service").required();
    static final ParamSpec<String> STATE = ParamSpec.choice("state", "whether it must be active or inactive", "active", "inactive")
            .defaultValue("active");
    static final ParamSpec<String> SYSTEMCTL = ParamSpec.text("systemctl", "systemctl executable (a path, or a name looked up in "
            + Executables.searched("systemctl") + ")").defaultValue("systemctl");

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
        Optional<Path> exe = Executables.find(tool);
        if (exe.isEmpty()) {
            return unreadable(entity, "systemctl not found (looked for " + tool + " in " + Executables.searched(tool) + "); is this a systemd host?");
        }
        ProcessRunner.Result r;
        try {
            r = ProcessRunner.of(List.of(exe.get().toString(), "show", "-p", "ActiveState,SubState,LoadState", "--", unit))
                    .timeout(ProcessRunner.within(ctx.remaining()))
                    .cleanEnvironment()
                    .run();
        } catch (ProcessRunner.StartFailure e) {
            return unreadable(entity, "cannot run " + exe.get() + ": " + e.reason());
        }
        if (r.timedOut()) {
            return unreadable(entity, exe.get() + " show " + unit + " did not answer in time; killed it");
        }
        if (r.exitCode() != 0) {
            return unreadable(entity, exe.get() + " show " + unit + " exited with " + r.exitCode() + ": " + r.firstLine());
        }
        Map<String, String> props = new HashMap<>();
        for (String line : r.stdout().split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                props.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        String active = props.get("ActiveState");
        if (active == null || active.isEmpty()) {
            return unreadable(entity, exe.get() + " show printed no ActiveState for " + unit + ": " + r.firstLine());
        }
        return ProbeResult.of(Observation.of(entity).put("active_state", active)
                .put("sub_state", props.getOrDefault("SubState", "")).put("load_state", props.getOrDefault("LoadState", ""))
                .put("active", RUNNING.contains(active)).build());
    }

    private static ProbeResult unreadable(Entity unit, String why) {
        return ProbeResult.of(Observation.unreadable(unit, why));
    }
}
