package dev.nhc.checks.dcgm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A real executable standing in for dcgmi: a sh script that logs its arguments and answers
 * {@code health -c}, {@code health -s} and {@code diag} from files (or from a sh snippet).
 */
public final class FakeDcgmi {
    final Path dir;
    final Path exe;
    final Path log;

    FakeDcgmi(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.exe = dir.resolve("dcgmi");
        this.log = dir.resolve("calls.log");
        script("echo \"unexpected: $*\" >&2; exit 9");
    }

    /** The body runs with the arguments in $@; every call is logged first. */
    FakeDcgmi script(String body) throws IOException {
        Files.writeString(exe, "#!/bin/sh\necho \"$*\" >> '" + log + "'\n" + body + "\n");
        Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    /** Answers {@code health -c -j} with this text and {@code diag} with that one (either may be null), exit codes as given. */
    FakeDcgmi answers(String healthJson, String diagOutput, int diagExit) throws IOException {
        if (healthJson != null) {
            Files.writeString(dir.resolve("health.out"), healthJson);
        }
        if (diagOutput != null) {
            Files.writeString(dir.resolve("diag.out"), diagOutput);
        }
        return script("case \"$1 $2\" in\n"
                + "  'health -c') cat '" + dir.resolve("health.out") + "' ;;\n"
                + "  'diag -r') cat '" + dir.resolve("diag.out") + "'; exit " + diagExit + " ;;\n"
                + "  *) echo \"unexpected: $*\" >&2; exit 9 ;;\n"
                + "esac");
    }

    /** A stand-in dcgmi in {@code dir} answering health and diag with these texts (either may be null); its path. */
    public static Path answering(Path dir, String healthJson, String diagOutput, int diagExit) throws IOException {
        return new FakeDcgmi(dir).answers(healthJson, diagOutput, diagExit).exe;
    }

    /** Answers with the content of a file as it is (for the shared captures). */
    FakeDcgmi catting(Path file) throws IOException {
        return script("cat '" + file + "'");
    }

    List<String> calls() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }
}
