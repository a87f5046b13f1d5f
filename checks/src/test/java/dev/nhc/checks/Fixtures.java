package dev.nhc.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the shared captures: system property {@code nhc.fixtures}, else {@code ../shared/fixtures}
 * beside the repository root (the directory whose pom.xml is nhc-parent, found walking up from
 * the working directory). A missing directory fails the test with what to set; it is never skipped.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path dir() {
        String prop = System.getProperty("nhc.fixtures");
        if (prop != null && !prop.isBlank()) {
            return existing(Path.of(prop).toAbsolutePath().normalize(), "system property nhc.fixtures");
        }
        Path d = Path.of("").toAbsolutePath();
        while (d != null) {
            Path pom = d.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && isRoot(Files.readString(pom))) {
                    return existing(d.resolve("../shared/fixtures").normalize(), "../shared/fixtures from the repository root " + d);
                }
            } catch (IOException ignored) {
                // unreadable pom: keep walking up
            }
            d = d.getParent();
        }
        throw new AssertionError("cannot find the repository root (a pom.xml with artifactId nhc-parent) above "
                + Path.of("").toAbsolutePath() + "; set -Dnhc.fixtures=/path/to/shared/fixtures");
    }

    /** The root pom is nhc-parent itself; module poms name it only inside their parent element. */
    private static boolean isRoot(String pom) {
        return pom.contains("<artifactId>nhc-parent</artifactId>") && !pom.contains("<parent>");
    }

    private static Path existing(Path p, String how) {
        if (!Files.isDirectory(p)) {
            throw new AssertionError("fixtures directory " + p + " (" + how + ") does not exist; set -Dnhc.fixtures=/path/to/shared/fixtures");
        }
        return p;
    }
}
