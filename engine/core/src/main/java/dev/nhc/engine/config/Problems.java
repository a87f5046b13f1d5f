package dev.nhc.engine.config;

import java.util.ArrayList;
import java.util.List;

/** Collects every problem of a config so that an admin sees all of them in one go, not one per edit. */
public final class Problems {
    private final List<ConfigProblem> list = new ArrayList<>();

    public void add(Location where, String message) {
        list.add(new ConfigProblem(where, message));
    }

    public int size() {
        return list.size();
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    /** In file order, so that an admin fixes them top to bottom. */
    public List<ConfigProblem> list() {
        if (list.size() < 2) {
            return List.copyOf(list);   // no comparator to build: a valid config passes here on every run
        }
        List<ConfigProblem> sorted = new ArrayList<>(list);
        sorted.sort(java.util.Comparator.comparingInt((ConfigProblem p) -> p.location().line())
                .thenComparingInt(p -> p.location().column()));
        return sorted;
    }

    public void throwIfAny() throws ConfigException {
        if (!list.isEmpty()) {
            throw new ConfigException(list());
        }
    }
}
