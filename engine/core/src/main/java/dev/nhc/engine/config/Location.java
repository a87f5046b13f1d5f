package dev.nhc.engine.config;

/** Where something is in a config file, 1-based, printed the way compilers do: {@code file:line:column}. */
public record Location(String file, int line, int column) {

    public static Location of(String file) {
        return new Location(file, 0, 0);
    }

    @Override
    public String toString() {
        return line <= 0 ? file : file + ":" + line + ":" + column;
    }
}
