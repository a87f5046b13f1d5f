package dev.nhc.probe;

import java.util.List;

/**
 * A check type, such as {@code disk.usage} or {@code gpu.ecc}: reads the system once and returns
 * observations per entity. It never decides a severity: the check's rules judge what it saw.
 *
 * <p>Probes are registered by name in a {@link ProbeCatalog} (created when a config uses them) or
 * listed themselves under {@code META-INF/services/dev.nhc.probe.Probe} (created on every
 * run to learn their names), both found by {@link java.util.ServiceLoader}, so a site can drop in
 * a jar. The constructor must be cheap and load nothing heavy (no native library, no script
 * engine): {@code nhc list} creates every probe.
 */
public interface Probe {

    ProbeSpec spec();

    /**
     * Reads the system. May block (the runner abandons it after its timeout and interrupts it);
     * may throw, which makes the check UNKNOWN with the exception's message as reason, so the
     * message must say what could not be read, e.g. "cannot read /proc/meminfo: No such file".
     */
    ProbeResult probe(ProbeContext ctx) throws Exception;

    /**
     * Forgets what this probe remembers about the node ({@code nhc clear CHECK} after a repair):
     * latched events, counters. The default empties the check's state section. A probe that also
     * keeps a read position there (a kernel log cursor) overrides this to keep the position, so
     * that the lines it already judged are not judged, and latched, again.
     */
    default void clear(ProbeState state) {
        state.clear();
    }

    /**
     * The reference tables this probe judges by (a vendor's catalogue and nhc's mapping of it), as
     * lines of text, for {@code nhc list NAME}. Read only when asked: a run never calls this.
     */
    default List<String> reference() {
        return List.of();
    }
}
