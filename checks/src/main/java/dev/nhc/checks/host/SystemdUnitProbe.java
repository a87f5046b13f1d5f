package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

/**
 * {@code systemd.unit}: a unit is active (or inactive), from
 * {@code systemctl show -p ActiveState,SubState,LoadState -- UNIT}. No systemctl, or a systemctl
 * that cannot talk to systemd (a container), makes the check UNKNOWN with the reason.
 */
public final class SystemdUnitProbe implements Probe {
    private static final ProbeSpec SPEC = ProbeSpec.builder("systemd.unit", "a systemd unit is active (or inactive)")
            .entities("the unit")
            .param(ParamSpec.required("unit", ParamType.STRING, "unit name, e.g. sshd.service"))
            .param(ParamSpec.optional("state", ParamType.STRING, "active", "active or inactive"))
            .param(ParamSpec.optional("systemctl", ParamType.STRING, "systemctl", "systemctl executable"))
            .field("active_state", Unit.TEXT, "ActiveState (active, failed, inactive…)")
            .field("sub_state", Unit.TEXT, "SubState (running, dead, exited…)")
            .field("load_state", Unit.TEXT, "LoadState (loaded, not-found…)")
            .field("active", Unit.BOOLEAN, "whether the unit is active")
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws InterruptedException {
        Params p = ctx.params();
        String unit = p.string("unit");
        String want = p.string("state") == null ? "active" : p.string("state");
        String tool = p.string("systemctl") == null ? "systemctl" : p.string("systemctl");
        if (!want.equals("active") && !want.equals("inactive")) {
            return unknown(unit, "check " + ctx.checkName() + ": state must be active or inactive, not '" + want + "'");
        }
        SystemdUnits.UnitState state;
        try {
            state = SystemdUnits.show(tool, unit, ctx.remaining());
        } catch (SystemdUnits.Unreadable e) {
            return unknown(unit, e.getMessage());
        }
        String active = state.activeState();
        String sub = state.subState();
        String load = state.loadState();
        boolean running = state.running();
        ProbeResult.Builder out = ProbeResult.builder().observe(Observation.of(unit).put("active_state", active)
                .put("sub_state", sub).put("load_state", load).put("active", running).build());
        String desc = active + (sub.isEmpty() ? "" : " (" + sub + ")");
        if (want.equals("active")) {
            if (load.equals("not-found")) {
                out.finding(Finding.of(unit, Severity.FAIL, "unit " + unit + " not found (LoadState not-found)"));
            } else if (!running) {
                out.finding(Finding.of(unit, Severity.FAIL, "unit " + unit + " is " + desc + ", expected active"));
            } else if (!active.equals("active") && !active.equals("reloading")) {
                out.finding(Finding.of(unit, Severity.WARN, "unit " + unit + " is " + desc + ", not yet active"));
            }
        } else if (running) {
            out.finding(Finding.of(unit, Severity.FAIL, "unit " + unit + " is " + desc + ", expected inactive"));
        }
        return out.build();
    }

    private static ProbeResult unknown(String unit, String why) {
        return ProbeResult.builder().finding(Finding.of(unit, Severity.UNKNOWN, why)).build();
    }
}
