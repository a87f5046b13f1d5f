package dev.nhc.probe;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One accepted key of a check's {@code with:} map (or of a config section), typed: the config
 * loader converts and validates the value when the config is loaded — a bad number, an unknown
 * word, a regex that does not compile is an error with its file:line:column, never a surprise at
 * run time — and a probe reads it back with {@link #get(Params)}, default included:
 *
 * <pre>{@code
 * static final ParamSpec<Long> MIN_COUNT = ParamSpec.integer("min_count", "how many must run").defaultValue(1L);
 * ...
 * long min = MIN_COUNT.get(ctx.params());
 * }</pre>
 *
 * @param <T> the converted value's type: String, Long, Double, Boolean, Duration, Pattern, List or Map
 */
public final class ParamSpec<T> {
    private final String name;
    private final ParamType type;
    private final boolean required;
    private final T defaultValue;
    private final String description;
    private final List<String> allowed;
    private final Function<T, String> check;
    private final PathUse pathUse;

    /**
     * What nhc does, as root, with the file a value names. When nhc runs as root the config loader
     * refuses, with the value's file:line:column, a value naming a file that someone other than
     * root could change (nhc's trust rule, README "Files nhc trusts").
     */
    public enum PathUse {
        /** A program nhc runs: a path or bare name (text), or a whole argv (texts), its arguments included. */
        RUN,
        /** Code nhc loads into its own process: a native library (a bare name is looked for as the dynamic linker would), a script.js file. */
        LOAD,
        /** A file nhc appends to (its log). */
        APPEND
    }

    private ParamSpec(String name, ParamType type, boolean required, T defaultValue, String description, List<String> allowed,
                      Function<T, String> check, PathUse pathUse) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.required = required;
        this.defaultValue = defaultValue;
        this.description = description == null ? "" : description;
        this.allowed = List.copyOf(allowed);
        this.check = check;
        this.pathUse = pathUse;
    }

    private static <T> ParamSpec<T> of(String name, ParamType type, String description) {
        return new ParamSpec<>(name, type, false, null, description, List.of(), null, null);
    }

    public static ParamSpec<String> text(String name, String description) {
        return of(name, ParamType.STRING, description);
    }

    public static ParamSpec<Long> integer(String name, String description) {
        return of(name, ParamType.INTEGER, description);
    }

    public static ParamSpec<Double> number(String name, String description) {
        return of(name, ParamType.NUMBER, description);
    }

    public static ParamSpec<Boolean> flag(String name, String description) {
        return of(name, ParamType.BOOLEAN, description);
    }

    public static ParamSpec<Duration> duration(String name, String description) {
        return of(name, ParamType.DURATION, description);
    }

    /** A size, converted to bytes. */
    public static ParamSpec<Long> bytes(String name, String description) {
        return of(name, ParamType.BYTES, description);
    }

    /** A percentage, converted to a number of percent (5% is 5.0). */
    public static ParamSpec<Double> percent(String name, String description) {
        return of(name, ParamType.PERCENT, description);
    }

    public static ParamSpec<List<String>> texts(String name, String description) {
        return of(name, ParamType.STRING_LIST, description);
    }

    public static ParamSpec<List<Long>> integers(String name, String description) {
        return of(name, ParamType.INTEGER_LIST, description);
    }

    public static ParamSpec<Map<String, Object>> map(String name, String description) {
        return of(name, ParamType.MAP, description);
    }

    /** Any YAML value as plain data; the probe reads the structure itself and must say what it expects. */
    public static ParamSpec<Object> any(String name, String description) {
        return of(name, ParamType.ANY, description);
    }

    /** One of these words (an enum); the first is listed first in messages. */
    public static ParamSpec<String> choice(String name, String description, String... words) {
        if (words.length == 0) {
            throw new IllegalArgumentException("a choice needs words");
        }
        return new ParamSpec<>(name, ParamType.CHOICE, false, null, description, List.of(words), null, null);
    }

    public static ParamSpec<Pattern> regex(String name, String description) {
        return of(name, ParamType.REGEX, description);
    }

    /** Permission bits in octal, normalised to "0644". */
    public static ParamSpec<String> octalMode(String name, String description) {
        return of(name, ParamType.OCTAL_MODE, description);
    }

    /** Shell-style globs, each compiled to a whole-string {@link Pattern}. */
    public static ParamSpec<List<Pattern>> globs(String name, String description) {
        return of(name, ParamType.GLOB_LIST, description);
    }

    /** This key must be given. */
    public ParamSpec<T> required() {
        return new ParamSpec<>(name, type, true, null, description, allowed, check, pathUse);
    }

    /** The value when the key is not given (already of the converted type). */
    public ParamSpec<T> defaultValue(T value) {
        return new ParamSpec<>(name, type, false, value, description, allowed, check, pathUse);
    }

    /**
     * A further rule for converted values: {@code check} returns why a value is wrong ("must be at
     * least 1"), or null when it is fine. Applied when the config is loaded.
     */
    public ParamSpec<T> check(Function<T, String> rule) {
        return new ParamSpec<>(name, type, required, defaultValue, description, allowed, rule, pathUse);
    }

    /** The value names a file nhc runs, loads or appends to: as root, the config loader applies the trust rule to it. */
    public ParamSpec<T> names(PathUse use) {
        if (use == PathUse.RUN ? type != ParamType.STRING && type != ParamType.STRING_LIST : type != ParamType.STRING) {
            throw new IllegalArgumentException(name + ": a " + use + " path is text" + (use == PathUse.RUN ? " or a list of texts" : ""));
        }
        return new ParamSpec<>(name, type, required, defaultValue, description, allowed, check, use);
    }

    /** What nhc does with the file this value names, or null when it names none. */
    public PathUse pathUse() {
        return pathUse;
    }

    public String name() {
        return name;
    }

    public ParamType type() {
        return type;
    }

    public boolean isRequired() {
        return required;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** The accepted words of a {@link ParamType#CHOICE}; empty otherwise. */
    public List<String> allowed() {
        return allowed;
    }

    /** Why {@code value} (converted) is not acceptable, or null. */
    @SuppressWarnings("unchecked")
    public String problemWith(Object value) {
        if (type == ParamType.CHOICE && !allowed.contains(value)) {
            return "'" + value + "' is not one of " + String.join(", ", allowed);
        }
        return check == null || value == null ? null : check.apply((T) value);
    }

    /** The value in these params (the loader has converted and checked it), or the default. */
    @SuppressWarnings("unchecked")
    public T get(Params params) {
        Object v = params.raw(name);
        return v == null ? defaultValue : (T) v;
    }

    /** Whether the check gave this key (a default does not count). */
    public boolean isSetIn(Params params) {
        return params.given(name);
    }

    @Override
    public String toString() {
        return name + " (" + type.label() + ")";
    }
}
