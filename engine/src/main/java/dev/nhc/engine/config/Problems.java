package dev.nhc.engine.config;

import java.util.ArrayList;
import java.util.List;

/** Collects every problem of a config so that an admin sees all of them in one go, not one per edit. */
public final class Problems {
    private final List<ConfigProblem> list = new ArrayList<>();

    public void add(Location where, String message) {
        list.add(new ConfigProblem(where, message));
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    public List<ConfigProblem> list() {
        return List.copyOf(list);
    }

    public void throwIfAny() throws ConfigException {
        if (!list.isEmpty()) {
            throw new ConfigException(list);
        }
    }
}
