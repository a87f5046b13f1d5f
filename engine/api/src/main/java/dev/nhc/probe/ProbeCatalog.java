package dev.nhc.probe;

/**
 * The probes a jar provides, by name, so that a run creates only the probes its config uses
 * (node_exporter's {@code registerCollector}). Found by {@link java.util.ServiceLoader} under
 * {@code META-INF/services/dev.nhc.probe.ProbeCatalog}; nhc's modules each have one. A
 * site jar may provide a catalog or, for a probe or two, list the probes themselves under
 * {@code META-INF/services/dev.nhc.probe.Probe} (those are created on every run).
 */
public interface ProbeCatalog {

    /** Adds every probe of this catalog; {@code name} must be the name in the probe's spec. */
    void register(Registrar registrar);

    interface Registrar {
        /** A probe class with a public no-argument constructor, created on first use. */
        void add(String name, Class<? extends Probe> type);
    }
}
