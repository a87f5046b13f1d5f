package dev.nhc.probe;

/** How a {@code with:} value is written and converted; the config loader converts and checks values by it. */
public enum ParamType {
    STRING, INTEGER, NUMBER, BOOLEAN, DURATION, BYTES, STRING_LIST, INTEGER_LIST, MAP, ANY,
    /** A percentage written {@code 5%} or bare {@code 5}; converted to a Double in percent (5.0). */
    PERCENT,
    /** One word of a fixed set ({@link ParamSpec#allowed()}); anything else is a config error. */
    CHOICE,
    /** A regular expression, compiled when the config is loaded: a {@link java.util.regex.Pattern}. */
    REGEX,
    /** Permission bits in octal ({@code 0644}, {@code 644}, {@code 0o644}), normalised to four digits: "0644". */
    OCTAL_MODE,
    /** Shell-style globs ({@code mlx5_*}, {@code "mlx5_[3-6]"}) as a list of {@link java.util.regex.Pattern}s. */
    GLOB_LIST;

    public String label() {
        return switch (this) {
            case STRING -> "string";
            case INTEGER -> "integer";
            case NUMBER -> "number";
            case BOOLEAN -> "boolean";
            case DURATION -> "duration (e.g. 30s)";
            case BYTES -> "size (e.g. 10GiB)";
            case STRING_LIST -> "list of strings";
            case INTEGER_LIST -> "list of integers";
            case MAP -> "map";
            case ANY -> "any";
            case PERCENT -> "percentage (e.g. 5%)";
            case CHOICE -> "one of";
            case REGEX -> "regular expression";
            case OCTAL_MODE -> "octal mode (e.g. 0644)";
            case GLOB_LIST -> "list of globs (e.g. [mlx5_0, \"mlx5_[3-6]\"])";
        };
    }
}
