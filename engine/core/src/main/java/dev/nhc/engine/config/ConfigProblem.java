package dev.nhc.engine.config;

/** One thing wrong with a config, where it is. */
public record ConfigProblem(Location location, String message) {
    @Override
    public String toString() {
        return location + ": " + message;
    }
}
