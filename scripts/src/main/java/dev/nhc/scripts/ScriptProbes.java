package dev.nhc.scripts;

import dev.nhc.probe.ProbeCatalog;

/** The probes of this module by name; each is created only when a config uses it. */
public final class ScriptProbes implements ProbeCatalog {
    @Override
    public void register(Registrar r) {
        r.add(ScriptProbe.NAME, ScriptProbe.class);
        r.add(ScriptJsProbe.NAME, ScriptJsProbe.class);
    }
}
