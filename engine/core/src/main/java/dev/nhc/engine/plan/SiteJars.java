package dev.nhc.engine.plan;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.TrustedJars;
import org.slf4j.LoggerFactory;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A site's own probes, config sections, actions and daemon plugins: jars in {@code lib/ext/} of
 * the installation and in {@code /etc/nhc/ext/}, found by ServiceLoader through {@link #loader()}.
 * Their code runs in nhc's process, as root, so as root a jar is loaded only when it, its
 * directory and everything above are root's and writable by no one else ({@link TrustedJars}); a
 * jar that is not is left out and said once on stderr, and a config that uses its probe is told
 * why the probe is missing ({@link #refused()}). The jars are loaded by their checked real paths.
 * With no jar there (the usual case) nothing is created: nhc's own class loader is the loader.
 */
public final class SiteJars {
    static final Path ETC_EXT = Path.of("/etc/nhc/ext");

    private static volatile Loaded loaded;

    private record Loaded(ClassLoader loader, List<String> refused) {
    }

    private SiteJars() {
    }

    /** The class loader every ServiceLoader lookup uses: nhc's own, with the site jars that passed when there are any. */
    public static ClassLoader loader() {
        return load().loader();
    }

    /** Why site jars were left out, one line each; empty when none was. */
    public static List<String> refused() {
        return load().refused();
    }

    private static Loaded load() {
        Loaded l = loaded;
        if (l == null) {
            synchronized (SiteJars.class) {
                l = loaded;
                if (l == null) {
                    l = create(directories(), Ownership.runningAsRoot(), SiteJars.class.getClassLoader());
                    loaded = l;
                }
            }
        }
        return l;
    }

    private static List<Path> directories() {
        String only = System.getProperty("nhc.site.dirs");
        if (only != null) {
            // The build's unit tests name a directory of their own: the machine's site jars are not theirs to load.
            return only.isEmpty() ? List.of() : java.util.Arrays.stream(only.split(":")).map(Path::of).toList();
        }
        String home = System.getProperty("nhc.home");
        return home == null ? List.of(ETC_EXT) : List.of(Path.of(home, "lib", "ext"), ETC_EXT);
    }

    private static Loaded create(List<Path> dirs, boolean rootOnly, ClassLoader nhc) {
        List<URL> jars = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Path dir : dirs) {
            TrustedJars.Found f = TrustedJars.in(dir, rootOnly);
            jars.addAll(f.jars());
            refused.addAll(f.refused());
        }
        for (String why : refused) {
            LoggerFactory.getLogger(SiteJars.class).warn("site jar left out: {}", why);
        }
        ClassLoader loader = jars.isEmpty() ? nhc : new URLClassLoader("nhc-site-jars", jars.toArray(new URL[0]), nhc);
        return new Loaded(loader, List.copyOf(refused));
    }

    /** A class loader over {@code dirs}' jars as {@link #loader()} makes it (tests). */
    static ClassLoader loaderFor(List<Path> dirs, boolean rootOnly, ClassLoader parent) {
        return create(dirs, rootOnly, parent).loader();
    }
}
