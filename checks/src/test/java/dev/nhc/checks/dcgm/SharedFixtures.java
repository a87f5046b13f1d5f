package dev.nhc.checks.dcgm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the shared real-world captures are: system property {@code nhc.fixtures}, else
 * {@code ../shared/fixtures} next to the repository root (the directory whose pom.xml is nhc-parent).
 */
final class SharedFixtures {
    private SharedFixtures() {
    }

    static Path dir() throws IOException {
        String prop = System.getProperty("nhc.fixtures");
        if (prop != null && !prop.isBlank()) {
            return requireDir(Path.of(prop), "system property nhc.fixtures");
        }
        Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (; d != null; d = d.getParent()) {
            Path pom = d.resolve("pom.xml");
            if (Files.isRegularFile(pom) && Files.readString(pom).contains("<artifactId>nhc-parent</artifactId>")) {
                return requireDir(d.resolve("../shared/fixtures").normalize(), "../shared/fixtures next to the repository " + d);
            }
        }
        throw new IOException("cannot find the shared fixtures: set -Dnhc.fixtures=DIR (no nhc-parent pom.xml above "
                + System.getProperty("user.dir") + ")");
    }

    private static Path requireDir(Path p, String from) throws IOException {
        if (!Files.isDirectory(p)) {
            throw new IOException("shared fixtures not found at " + p + " (from " + from + "); set -Dnhc.fixtures=DIR");
        }
        return p;
    }
}
