package dev.nhc.checks.host;

import dev.nhc.engine.process.ProcessRunner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds a tool such as systemctl: a path is taken as given, a bare name is looked up in the system
 * directories (never the caller's PATH: slurmd runs nhc with almost no environment; and never
 * /usr/local, which is not always root's alone), the same ones a {@code command} check searches.
 */
public final class Executables {
    private static final List<String> DIRS = List.of(ProcessRunner.SYSTEM_PATH.split(":"));

    private Executables() {
    }

    public static Optional<Path> find(String nameOrPath) {
        if (nameOrPath.contains("/")) {
            Path p = Path.of(nameOrPath);
            return Files.isExecutable(p) && !Files.isDirectory(p) ? Optional.of(p) : Optional.empty();
        }
        for (String d : DIRS) {
            Path p = Path.of(d, nameOrPath);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public static String searched(String nameOrPath) {
        return nameOrPath.contains("/") ? nameOrPath : String.join(", ", DIRS);
    }
}
