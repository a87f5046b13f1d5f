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
        ServiceLoader.load(Probe.class, loader).forEach(found::add);
        return new ProbeRegistry(found);
    }

    public Optional<Probe> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public Map<String, Probe> all() {
        return byName;
    }
}
