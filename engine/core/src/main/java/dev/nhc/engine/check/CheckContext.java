package dev.nhc.engine.check;

import dev.nhc.probe.Params;
import dev.nhc.probe.ProbeContext;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** The {@link ProbeContext} a {@link CheckRun} gives its probe. */
final class CheckContext implements ProbeContext {
    private final String checkName;
    private final Params params;
    private final Path root;
    private final StateStore store;
    private final String stateName;
    private final Instant deadline;
    private final String hostname;
    private final Map<String, Object> settings;
    private final Function<String, Params> sections;
    private final Clock clock;
    private final Map<Class<?>, Object> services;
    private final Set<String> fieldsRead;
    private final Duration timeLimit;

    CheckContext(String checkName, Params params, Path root, StateStore store, String stateName, Instant deadline, Duration timeLimit,
               String hostname, Map<String, Object> settings, Function<String, Params> sections, Clock clock, Map<Class<?>, Object> services,
               Set<String> fieldsRead) {
        this.checkName = checkName;
        this.params = params;
        this.root = root;
        this.store = store;
        this.stateName = stateName;
        this.deadline = deadline;
        this.hostname = hostname;
        this.settings = settings;
        this.sections = sections;
        this.clock = clock;
        this.services = services;
        this.fieldsRead = fieldsRead;
        this.timeLimit = timeLimit;
    }

    @Override
    public String checkName() {
        return checkName;
    }

    @Override
    public Params params() {
        return params;
    }

    @Override
    public Path sys(String absolutePath) {
        String rel = absolutePath.startsWith("/") ? absolutePath.substring(1) : absolutePath;
        return root.resolve(rel);
    }

    /** Read on first use, in the probe's own thread: checks that keep state read their files in parallel. */
    @Override
    public StateSection state() {
        return store.section(stateName);
    }

    /** Writes this check's state if the probe changed it (see {@link StateStore#flush(String)}). */
    void saveState() {
        store.flush(stateName);
    }

    @Override
    public Instant deadline() {
        return deadline;
    }

    @Override
    public Duration timeLimit() {
        return timeLimit;
    }

    @Override
    public boolean fieldWanted(String field) {
        return fieldsRead.contains(field);
    }

    @Override
    public String hostname() {
        return hostname;
    }

    @Override
    public Object setting(String key) {
        return settings.get(key);
    }

    @Override
    public Params section(String key) {
        return sections.apply(key);
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public <T> Optional<T> service(Class<T> type) {
        return Optional.ofNullable(type.cast(services.get(type)));
    }
}
