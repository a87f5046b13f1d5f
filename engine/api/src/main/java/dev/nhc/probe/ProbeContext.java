package dev.nhc.probe;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** What a probe may use while it runs. Everything that touches the system goes through here so that tests can point it at a temp tree. */
public interface ProbeContext {

    /** The configured check's name (e.g. {@code root-fs}). */
    String checkName();

    Params params();

    /**
     * Resolves an absolute system path ({@code /proc/meminfo}, {@code /sys/class/...},
     * {@code /dev/kmsg}) under the configured system root ({@code settings.root}, "/" in
     * production, a temp tree in tests).
     */
    Path sys(String absolutePath);

    /** This check's persistent state (counters for rates, cursors, latched events), saved atomically after the run. */
    ProbeState state();

    /** When the probe must be done; blocking calls should use the remaining time as their own limit. */
    Instant deadline();

    default Duration remaining() {
        Duration d = Duration.between(clock().instant(), deadline());
        return d.isNegative() ? Duration.ZERO : d;
    }

    /**
     * The time the check was given, as configured (its {@code timeout:}, else
     * {@code settings.check_timeout}), or what the run's deadline left it when that was less: the
     * limit a message names ("did not finish within 10s"), where {@link #deadline()} is when to stop.
     */
    default Duration timeLimit() {
        return remaining();
    }

    /** The limit to name for a probe given its own time limit as well ({@code own}, a parameter; null: none): the shorter. */
    default Duration timeLimit(Duration own) {
        return own != null && own.compareTo(timeLimit()) < 0 ? own : timeLimit();
    }

    /**
     * Whether the check's rules or messages read this field. A probe reads its cheap fields
     * regardless (reports show them); a field that costs extra to read, such as inode counts that
     * need statvfs through JNA, may be left out when nothing reads it.
     */
    default boolean fieldWanted(String field) {
        return true;
    }

    /** The node's short host name. */
    String hostname();

    /** A value from the config's {@code settings:} section (e.g. {@code nvml_library}), or null. */
    Object setting(String key);

    /**
     * A top-level config section that a probe's own module contributes (a {@code ConfigSection}
     * found by ServiceLoader, such as the checks' {@code gpu:}), converted and with its defaults;
     * empty when no such section is known.
     */
    default Params section(String key) {
        return Params.empty();
    }

    Clock clock();

    /**
     * Something the command line or the daemon provides to probes, looked up by type: e.g. a
     * replayed GPU capture instead of live NVML, or an already initialised NVML session.
     */
    <T> Optional<T> service(Class<T> type);
}
