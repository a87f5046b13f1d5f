package dev.nhc.probe;

/** The type of a {@code with:} parameter; the config loader converts and checks values by it. */
public enum ParamType {
    STRING, INTEGER, NUMBER, BOOLEAN, DURATION, BYTES, STRING_LIST, INTEGER_LIST, MAP, ANY,
    /** A percentage written {@code 5%} or bare {@code 5}; converted to a Double in percent (5.0). */
    PERCENT;

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
        };
    }
}
