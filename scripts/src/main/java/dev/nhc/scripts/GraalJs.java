package dev.nhc.scripts;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.TrustedJars;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds GraalJS for script.js. An installation keeps it out of the class path, in
 * {@code lib/polyglot/} (twelve jars, 20,000 entries: every run would otherwise open them all when
 * it looks up its service providers, ~15 ms of a one-shot run that never uses JavaScript), and
 * loads it here, on the first script.js run, into a class loader of its own. Where GraalJS is on
 * the class path already (tests, a hand-made class path), that is used.
 */
public final class GraalJs {
    static final String SANDBOX = "dev.nhc.scripts.js.JsSandbox";
    private static final String PACKAGE = "dev.nhc.scripts.js.";

    private static volatile JsRunner runner;

    private GraalJs() {
    }

    /** The sandbox, created once per process (the daemon reuses its engine). */
    static JsRunner runner() throws ScriptFailure {
        JsRunner r = runner;
        if (r == null) {
            synchronized (GraalJs.class) {
                r = runner;
                if (r == null) {
                    r = create(GraalJs.class.getClassLoader(), polyglotDir());
                    runner = r;
                }
            }
        }
        return r;
    }

    /** {@code lib/polyglot} of the installation ({@code nhc.home} is set by bin/nhc), or null. */
    static Path polyglotDir() {
        String home = System.getProperty("nhc.home");
        return home == null ? null : Path.of(home, "lib", "polyglot");
    }

    static JsRunner create(ClassLoader nhc, Path polyglotDir) throws ScriptFailure {
        ClassLoader loader = nhc;
        if (!visible(nhc, "org.graalvm.polyglot.Context")) {
            List<URL> jars = jars(polyglotDir);
            if (jars.isEmpty()) {
                throw new ScriptFailure("script.js needs GraalJS, which is not installed: no org.graalvm.polyglot on the class path"
                        + (polyglotDir == null ? "" : " and no jars in " + polyglotDir));
            }
            loader = new SandboxLoader(jars.toArray(new URL[0]), nhc);
        }
        try {
            return (JsRunner) Class.forName(SANDBOX, true, loader).getConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new ScriptFailure("script.js cannot start GraalJS: " + e);
        }
    }

    private static boolean visible(ClassLoader loader, String className) {
        try {
            Class.forName(className, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The GraalJS jars, which root loads only when only root can change them (as a site's jars, {@link TrustedJars}). */
    private static List<URL> jars(Path dir) throws ScriptFailure {
        if (dir == null) {
            return List.of();
        }
        TrustedJars.Found found = TrustedJars.in(dir, Ownership.runningAsRoot());
        if (!found.refused().isEmpty()) {
            throw new ScriptFailure("script.js cannot use GraalJS: " + String.join("; ", found.refused()));
        }
        return found.jars();
    }

    /**
     * GraalJS's jars, with nhc's loader as parent, and nhc's sandbox class itself: that class is
     * in nhc's jar, but it must be defined here, where org.graalvm is visible. Everything else
     * (the JDK, nhc's public types such as {@link JsRunner}) comes from the parent.
     */
    private static final class SandboxLoader extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        SandboxLoader(URL[] jars, ClassLoader parent) {
            super("nhc-graaljs", jars, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(PACKAGE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = defineFromParent(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        private Class<?> defineFromParent(String name) throws ClassNotFoundException {
            String resource = name.replace('.', '/') + ".class";
            try (InputStream in = getParent().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new ClassNotFoundException(name);
                }
                byte[] bytes = in.readAllBytes();
                return defineClass(name, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}
