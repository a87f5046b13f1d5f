package dev.nhc.engine.config;

import java.util.List;
import java.util.stream.Collectors;

/** The config cannot be used; every problem found is listed, each with its file:line:column. Means exit 2 and no action. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public ConfigException(Location where, String message) {
        this(List.of(new ConfigProblem(where, message)));
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    /** Every problem on one line (a log line, a reload's rejection), each with its place. */
    public String oneLine() {
        String joined = problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("; "));
        return joined.isEmpty() ? String.valueOf(getMessage()) : joined;
    }
}
