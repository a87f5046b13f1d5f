package dev.nhc.scripts;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.process.ProcessRunner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** Finding a configured script and deciding whether root may run it. */
final class Executables {
    /** Interpreters whose first argument is the program that really runs, so it gets the same ownership check. */
    private static final Set<String> INTERPRETERS = Set.of("sh", "bash", "dash", "ksh", "zsh", "python", "python3",
            "perl", "ruby", "env");

    private Executables() {
    }

    /** An absolute path as given, a bare name looked up on nhc's safe PATH; null when there is no such executable. */
    static Path resolve(String command) {
        if (command.contains("/")) {
            Path p = Path.of(command);
            return p.isAbsolute() && Files.isRegularFile(p) && Files.isExecutable(p) ? p : null;
        }
        for (String dir : ProcessRunner.SYSTEM_PATH.split(":")) {
            Path p = Path.of(dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Why root must not run this command, or null. The executable is checked, and so is the
     * script an interpreter is asked to run ({@code [/bin/sh, /etc/nhc/x.sh]}), because whoever
     * can write either decides what root does.
     */
    static String unsafeForRoot(Path exe, List<String> argv) throws IOException {
        String why = Ownership.unsafeForRoot(exe);
        if (why != null) {
            return why;
        }
        String base = exe.getFileName().toString().replaceAll("[0-9.]+$", "");
        if (INTERPRETERS.contains(exe.getFileName().toString()) || INTERPRETERS.contains(base)) {
            for (String arg : argv.subList(1, argv.size())) {
                if (arg.startsWith("-")) {
                    continue;
                }
                Path script = Path.of(arg);
                if (script.isAbsolute() && Files.isRegularFile(script)) {
                    return Ownership.unsafeForRoot(script);
                }
                break;
            }
        }
        return null;
    }
}
