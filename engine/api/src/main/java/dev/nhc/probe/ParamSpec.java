package dev.nhc.probe;

/** One accepted key of a check's {@code with:} map. {@code defaultValue} is already of the converted type. */
public record ParamSpec(String name, ParamType type, boolean required, Object defaultValue, String description) {

    public static ParamSpec required(String name, ParamType type, String description) {
        return new ParamSpec(name, type, true, null, description);
    }

    public static ParamSpec optional(String name, ParamType type, Object defaultValue, String description) {
        return new ParamSpec(name, type, false, defaultValue, description);
    }
}
