package dev.nhc.checks.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Finds a tool such as systemctl: a path is taken as given, a bare name is looked up in the standard system directories (never the caller's PATH: slurmd runs nhc with almost no environment). */
public final class Executables {
    private static final List<String> DIRS = List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin");

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
