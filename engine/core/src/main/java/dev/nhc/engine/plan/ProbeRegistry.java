package dev.nhc.engine.plan;

import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeCatalog;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * All probes on the class path, by name (node_exporter's registration by name, via ServiceLoader).
 * Probes registered by a {@link ProbeCatalog} are created when first asked for: a one-shot run
 * with four host checks does not pay for constructing the other twenty probes.
 */
public final class ProbeRegistry {
    /** A probe by name: its class until first use, then the one instance (or broken: it could not be created). */
    private static final class Entry {
        final Class<? extends Probe> type;
        Probe probe;
        boolean broken;

        Entry(Class<? extends Probe> type, Probe probe) {
            this.type = type;
            this.probe = probe;
        }
    }

    private final Map<String, Entry> byName;

    /** A registry of these probes (tests; a site's own composition). */
    public ProbeRegistry(Iterable<Probe> probes) {
        this.byName = new TreeMap<>();
        for (Probe p : probes) {
            put(p.spec().name(), new Entry(p.getClass(), p));
        }
    }

    private ProbeRegistry() {
        this.byName = new TreeMap<>();
    }

    private void put(String name, Entry e) {
        Entry previous = byName.putIfAbsent(name, e);
        if (previous != null) {
            throw new IllegalStateException("two probes are named " + name + ": " + previous.type.getName() + " and " + e.type.getName());
        }
    }

    /** The probes of nhc and of the site jars that may be loaded ({@link SiteJars}). */
    public static ProbeRegistry load() {
        return load(SiteJars.loader());
    }

    /**
     * The probes the class path provides. A site jar that is broken leaves out only its own probes,
     * each said once in the log: a catalog whose {@code register} throws, a probe whose
     * {@code spec()} throws, and two different probes under one name (both are left out: running
     * either under a name that means the other would be worse than a config that names the place).
     * A config that uses such a name is told the probe "could not be loaded".
     */
    public static ProbeRegistry load(ClassLoader loader) {
        ProbeRegistry r = new ProbeRegistry();
        ProbeCatalog.Registrar registrar = new ProbeCatalog.Registrar() {
            @Override
            public void add(String name, Class<? extends Probe> type) {
                r.putLoaded(name, new Entry(type, null));
            }
        };
        for (ProbeCatalog catalog : providers(ProbeCatalog.class, loader)) {
            try {
                catalog.register(registrar);
            } catch (RuntimeException | LinkageError e) {
                broken(catalog.getClass().getName() + " (a probe catalog) failed to register its probes: " + e);
            }
        }
        for (Probe p : providers(Probe.class, loader)) {
            String name;
            try {
                name = p.spec().name();
            } catch (RuntimeException | LinkageError e) {
                broken(p.getClass().getName() + ": its spec() failed: " + e);
                continue;
            }
            r.putLoaded(name, new Entry(p.getClass(), p));
        }
        return r;
    }

    /** Like put, for what the class path provides: a clash leaves the name known but broken rather than failing every command. */
    private void putLoaded(String name, Entry e) {
        Entry previous = byName.putIfAbsent(name, e);
        if (previous == null || previous.type == e.type) {
            return; // new, or the same class twice (a jar on the class path twice)
        }
        if (!previous.broken) {
            broken("two probes are named " + name + ": " + previous.type.getName() + " and " + e.type.getName()
                    + "; both are left out");
        }
        previous.broken = true;
        previous.probe = null;
    }

    /**
     * Every provider that loads. One broken site jar must not take every other check down with it;
     * a config that uses its probe gets "unknown probe" with the list of those present.
     */
    private static <T> Iterable<T> providers(Class<T> service, ClassLoader loader) {
        List<T> found = new ArrayList<>();
        Iterator<T> it = ServiceLoader.load(service, loader).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                broken(e.getMessage());
            }
        }
        return found;
    }

    private static void broken(String what) {
        LoggerFactory.getLogger(ProbeRegistry.class).warn("a probe could not be loaded and is left out: {}", what);
    }

    public Optional<Probe> find(String name) {
        Entry e = byName.get(name);
        return e == null ? Optional.empty() : Optional.ofNullable(instance(name, e));
    }

    /** Every probe name, sorted; creates no probe. */
    public Set<String> names() {
        return Collections.unmodifiableSet(byName.keySet());
    }

    /** Every probe that can be created, by name, sorted (creates them all: {@code nhc list}). */
    public Map<String, Probe> all() {
        Map<String, Probe> out = new LinkedHashMap<>();
        for (Map.Entry<String, Entry> e : byName.entrySet()) {
            Probe p = instance(e.getKey(), e.getValue());
            if (p != null) {
                out.put(e.getKey(), p);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static Probe instance(String name, Entry e) {
        synchronized (e) {
            if (e.probe == null && !e.broken) {
                try {
                    Probe p = e.type.getConstructor().newInstance();
                    if (!name.equals(p.spec().name())) {
                        throw new IllegalStateException("registered as " + name + " but its spec says " + p.spec().name());
                    }
                    e.probe = p;
                } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
                    e.broken = true;
                    Throwable why = ex instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : ex;
                    broken(e.type.getName() + " (" + name + "): " + why);
                }
            }
            return e.probe;
        }
    }
}
