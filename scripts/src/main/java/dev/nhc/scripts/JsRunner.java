package dev.nhc.scripts;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Runs one script.js check in a sandbox. Implemented by {@link dev.nhc.scripts.js.JsSandbox}, the
 * one class that touches GraalJS; this interface is what the rest of nhc sees of it, and it uses
 * only JDK types because the implementation may live in a class loader of its own.
 */
public interface JsRunner {
    /**
     * Evaluates {@code source}; the globals {@code observations}, {@code vars} and {@code node}
     * hold the given JSON and host name, {@code readFile(path)} and {@code listDir(path)} call the
     * given functions. Returns the script's completion value as JSON text ("null" when it has none).
     */
    String run(String source, String name, String observationsJson, String varsJson, String node,
               Function<String, String> readFile, Function<String, List<String>> listDir, Duration timeout) throws ScriptFailure;
}
