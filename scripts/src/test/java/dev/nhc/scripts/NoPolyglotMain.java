package dev.nhc.scripts;

import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;

/**
 * Run in a JVM whose class path lacks the GraalVM jars: lists every probe and its spec, the way
 * {@code nhc list} and config loading do. Exits 0 only if that works and no org.graalvm class was needed.
 */
public final class NoPolyglotMain {
    private NoPolyglotMain() {
    }

    public static void main(String[] args) {
        ProbeRegistry registry = ProbeRegistry.load();
        for (Probe p : registry.all().values()) {
            System.out.println(p.spec().name() + " " + p.spec().params().size());
        }
        try {
            Class.forName("org.graalvm.polyglot.Context");
            System.out.println("polyglot is on the class path");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            System.out.println("no polyglot");
        }
    }
}
