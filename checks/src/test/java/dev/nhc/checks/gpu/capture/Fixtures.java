package dev.nhc.checks.gpu.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared captures (../shared/fixtures next to the repository, read-only, never copied in):
 * system property {@code nhc.fixtures}, else found by walking up from the working directory to
 * the repository root (the pom.xml of nhc-parent).
 */
final class Fixtures {

    private Fixtures() {
    }

    static Path dir() throws IOException {
        String configured = System.getProperty("nhc.fixtures");
        if (configured != null && !configured.isBlank()) {
            return existing(Path.of(configured));
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path pom = p.resolve("pom.xml");
            if (Files.isRegularFile(pom) && Files.readString(pom).contains("<artifactId>nhc-parent</artifactId>")) {
                return existing(p.resolve("../shared/fixtures").normalize());
            }
        }
        throw new IllegalStateException("no nhc-parent pom.xml above " + Path.of("").toAbsolutePath() + "; set -Dnhc.fixtures=DIR");
    }

    static Path nvidiaSmi(String name) throws IOException {
        return dir().resolve("nvidia-smi").resolve(name);
    }

    private static Path existing(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("the shared fixtures are not at " + dir + "; set -Dnhc.fixtures=DIR");
        }
        return dir;
    }
}
