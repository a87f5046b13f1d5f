package dev.nhc.engine.testing;

import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.Params;
import dev.nhc.engine.state.StateSection;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link ProbeContext} for probe tests: a system root in a temp directory, params given as a
 * map, state kept in memory across calls so that tests can run a probe twice and see rates.
 */
public final class TestProbeContext implements ProbeContext {
    private final Path root;
    private Params params = Params.empty();
    private StateSection state = StateSection.detached("test");
    private Clock clock = Clock.systemUTC();
    private Duration budget = Duration.ofSeconds(10);
    private String hostname = "node001";
    private final Map<String, Object> settings = new HashMap<>();
    private final Map<Class<?>, Object> services = new HashMap<>();
    private final Map<String, Params> sections = new HashMap<>();
    private String checkName = "test-check";
    private java.util.Set<String> fieldsRead;   // null: every field is wanted

    public TestProbeContext(Path root) {
        this.root = root;
    }

    /**
     * The check's {@code with:} as the config loader converts it for this probe, from YAML text such as
     * {@code "{ name: sshd, state: absent }"}: typed values and defaults, and a config error fails the test.
     */
    public TestProbeContext with(dev.nhc.probe.ProbeSpec spec, String yaml) {
        try {
            dev.nhc.engine.config.Problems problems = new dev.nhc.engine.config.Problems();
            dev.nhc.engine.config.ConfigNode node = dev.nhc.engine.config.YamlReader.read("with.yaml", yaml);
            this.params = dev.nhc.engine.config.ParamConverter.convert("with:", node, node.location(), spec.params(), problems);
            if (!problems.isEmpty()) {
                throw new AssertionError("invalid with: " + problems.list());
            }
        } catch (dev.nhc.engine.config.ConfigException e) {
            throw new AssertionError("invalid with: " + e.problems(), e);
        }
        return this;
    }

    public TestProbeContext params(Map<String, Object> values) {
        this.params = new Params(new LinkedHashMap<>(values));
        return this;
    }

    public TestProbeContext state(StateSection s) {
        this.state = s;
        return this;
    }

    public TestProbeContext clock(Clock c) {
        this.clock = c;
        return this;
    }

    public TestProbeContext budget(Duration d) {
        this.budget = d;
        return this;
    }

    public TestProbeContext hostname(String h) {
        this.hostname = h;
        return this;
    }

    public TestProbeContext setting(String key, Object value) {
        settings.put(key, value);
        return this;
    }

    /** A config section's values, as the loader would convert them (e.g. the checks' {@code gpu:}). */
    public TestProbeContext section(String key, Map<String, Object> values) {
        sections.put(key, new Params(new LinkedHashMap<>(values)));
        return this;
    }

    @Override
    public Params section(String key) {
        return sections.getOrDefault(key, Params.empty());
    }

    public <T> TestProbeContext service(Class<T> type, T value) {
        services.put(type, value);
        return this;
    }

    /** The fields the check's rules read; a probe may leave costly others out. */
    public TestProbeContext fieldsRead(String... fields) {
        this.fieldsRead = java.util.Set.of(fields);
        return this;
    }

    @Override
    public boolean fieldWanted(String field) {
        return fieldsRead == null || fieldsRead.contains(field);
    }

    public TestProbeContext checkName(String n) {
        this.checkName = n;
        return this;
    }

    /** Creates the file {@code absolutePath} under the root with the given content. */
    public Path write(String absolutePath, String content) throws java.io.IOException {
        Path p = sys(absolutePath);
        java.nio.file.Files.createDirectories(p.getParent());
        java.nio.file.Files.writeString(p, content);
        return p;
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
        return root.resolve(absolutePath.startsWith("/") ? absolutePath.substring(1) : absolutePath);
    }

    @Override
    public StateSection state() {
        return state;
    }

    @Override
    public Instant deadline() {
        return clock.instant().plus(budget);
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
    public Clock clock() {
        return clock;
    }

    @Override
    public <T> Optional<T> service(Class<T> type) {
        return Optional.ofNullable(type.cast(services.get(type)));
    }
}
