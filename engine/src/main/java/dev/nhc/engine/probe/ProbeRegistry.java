package dev.nhc.engine.probe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** All probes on the class path, by name (node_exporter's registration by name, via ServiceLoader). */
public final class ProbeRegistry {
    private final Map<String, Probe> byName;

    public ProbeRegistry(Iterable<Probe> probes) {
        Map<String, Probe> m = new TreeMap<>();
        for (Probe p : probes) {
            Probe previous = m.putIfAbsent(p.spec().name(), p);
            if (previous != null) {
                throw new IllegalStateException("two probes are named " + p.spec().name() + ": "
                        + previous.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        this.byName = Collections.unmodifiableMap(m);
    }

    public static ProbeRegistry load() {
        return load(ProbeRegistry.class.getClassLoader());
    }

    public static ProbeRegistry load(ClassLoader loader) {
        List<Probe> found = new ArrayList<>();
        java.util.Iterator<Probe> it = ServiceLoader.load(Probe.class, loader).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (java.util.ServiceConfigurationError | LinkageError e) {
                // One broken probe jar must not take every other check down with it; a config
                // that uses the missing probe gets "unknown probe" with the list of those present.
                org.slf4j.LoggerFactory.getLogger(ProbeRegistry.class).warn("a probe could not be loaded and is left out: {}", e.getMessage());
            }
        }
        return new ProbeRegistry(found);
    }

    public Optional<Probe> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public Map<String, Probe> all() {
        return byName;
    }
}
