package dev.nhc.checks.host;

import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Observation;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a systemd unit's state with {@code systemctl show -p ActiveState,SubState,LoadState -- UNIT}
 * (argv only, under {@link Executables}' rules for programs root runs, under a time limit): for {@code systemd.unit} and for probes
 * that depend on a service, such as {@code gpu.fabric} and nvidia-fabricmanager.
 */
public final class SystemdUnits {
    /** ActiveStates in which the unit's processes run (or are being started): a "running" unit. */
    public static final Set<String> RUNNING = Set.of("active", "reloading", "activating", "refreshing");

    /** A unit as systemd reports it. */
    public record UnitState(String activeState, String subState, String loadState) {
        public boolean running() {
            return RUNNING.contains(activeState);
        }

        /** The fields {@code systemd.unit} observes: active_state, sub_state, load_state, active. */
        public Observation.Builder observe(Observation.Builder o) {
            return o.put("active_state", activeState).put("sub_state", subState).put("load_state", loadState).put("active", running());
        }
    }

    /** The unit's state could not be read; the message says what and why. */
    public static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message, null, false, false);
        }
    }

    private SystemdUnits() {
    }

    /**
     * @param systemctl a path, or a name looked up in the system directories; run under {@link Executables}' rules
     * @param within    how long systemctl may take
     * @throws Unreadable no systemctl, or one that cannot talk to systemd (a container), hung or printed nothing usable
     */
    public static UnitState show(String systemctl, String unit, Duration within) throws Unreadable, InterruptedException {
        ProcessRunner.Result r;
        List<String> argv = List.of(systemctl, "show", "-p", "ActiveState,SubState,LoadState", "--", unit);
        try (TrustedCommand cmd = Executables.prepare(argv)) {
            r = Executables.runner(cmd).timeout(ProcessRunner.within(within)).run();
        } catch (Executables.Unusable e) {
            throw new Unreadable(e.notFound() ? "systemctl not found (looked for " + systemctl + " in " + Executables.searched(systemctl)
                    + "); is this a systemd host?" : e.getMessage());
        } catch (ProcessRunner.StartFailure e) {
            throw new Unreadable("cannot run " + systemctl + ": " + e.reason());
        } catch (IOException e) {
            throw new Unreadable("cannot run " + systemctl + ": " + e.getMessage());
        }
        if (r.timedOut()) {
            throw new Unreadable(systemctl + " show " + unit + " did not answer in time; killed it");
        }
        if (r.exitCode() != 0) {
            throw new Unreadable(systemctl + " show " + unit + " exited with " + r.exitCode() + ": " + r.firstLine());
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
            throw new Unreadable(systemctl + " show printed no ActiveState for " + unit + ": " + r.firstLine());
        }
        return new UnitState(active, props.getOrDefault("SubState", ""), props.getOrDefault("LoadState", ""));
    }
}
