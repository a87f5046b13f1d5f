package dev.nhc.engine.process;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real programs started through their descriptor; the root-only rules need root (CI) and are skipped otherwise. */
class TrustedCommandTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = tmp.toRealPath();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Path script(Path where, String body) throws Exception {
        Files.createDirectories(where.getParent());
        Files.writeString(where, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(where, PosixFilePermissions.fromString("rwxr-xr-x"));
        return where;
    }

    private static ProcessRunner.Result run(List<String> command, boolean rootOnly) throws Exception {
        try (TrustedCommand c = TrustedCommand.prepare(command, rootOnly)) {
            return c.runner().run();
        }
    }

    @Test
    void aScriptRunsThroughTheDescriptorThatWasCheckedWithACleanEnvironment() throws Exception {
        Path s = script(dir.resolve("s.sh"), "echo \"$0|$1|$2|$(pwd)\"; env | sort | grep -v '^NHC_PROCESS_TAG=' | grep -v '^PWD='");
        ProcessRunner.Result r = run(List.of(s.toString(), "a b", ""), false);
        assertEquals(0, r.exitCode(), r.stderr());
        String[] lines = r.stdout().split("\n");
        assertTrue(lines[0].matches("/proc/\\d+/fd/\\d+\\|a b\\|\\|/"), lines[0]);
        assertEquals(List.of("PATH=" + ProcessRunner.SYSTEM_PATH), List.of(lines).subList(1, lines.length).stream()
                .filter(l -> !l.startsWith("SHLVL=") && !l.startsWith("_=")).toList(), "nothing of nhc's environment");
    }

    @Test
    void aBareNameIsFoundInTheSystemDirectoriesOnly() throws Exception {
        ProcessRunner.Result r = run(List.of("echo", "hi"), false);
        assertEquals("hi\n", r.stdout());
        TrustedCommand.NotFoundException e = assertThrows(TrustedCommand.NotFoundException.class,
                () -> TrustedCommand.prepare(List.of("nhc-no-such-tool"), false));
        assertEquals("not found or not executable on " + ProcessRunner.SYSTEM_PATH, e.getMessage());
        assertThrows(TrustedCommand.NotFoundException.class, () -> TrustedCommand.prepare(List.of("relative/tool"), false));
        Path notExecutable = Files.writeString(dir.resolve("plain"), "x");
        assertThrows(TrustedCommand.NotFoundException.class, () -> TrustedCommand.prepare(List.of(notExecutable.toString()), false));
    }

    @Test
    void theDescriptorStaysOpenUntilClosedSoAnInterpreterCanReadItsScriptLate() throws Exception {
        Path s = script(dir.resolve("late.sh"), "echo late");
        TrustedCommand c = TrustedCommand.prepare(List.of(s.toString()), false);
        Files.delete(s);
        try (c) {
            assertEquals("late\n", c.runner().run().stdout(), "the deleted file is still run: it is the one opened");
        }
    }

    @Test
    void theArgumentsANamedFileCanHide() {
        assertEquals(List.of(Path.of("/x/s.sh")), TrustedCommand.pathsIn("/x/s.sh"));
        assertEquals(List.of(Path.of("/x/prog")), TrustedCommand.pathsIn("--file=/x/prog"));
        assertEquals(List.of(Path.of("/x/prog")), TrustedCommand.pathsIn("-f/x/prog"));
        assertEquals(List.of(Path.of("/tmp/s.sh")), TrustedCommand.pathsIn("tmp/s.sh"), "relative to /, the working directory");
        assertEquals(List.of(Path.of("/bash"), Path.of("/usr/sbin/bash"), Path.of("/usr/bin/bash"), Path.of("/sbin/bash"), Path.of("/bin/bash")),
                TrustedCommand.pathsIn("bash"), "a bare word may be a program env or xargs looks up");
        assertEquals(List.of(), TrustedCommand.pathsIn("-c"));
        assertEquals(List.of(), TrustedCommand.pathsIn("--verbose"));
        assertEquals(List.of(), TrustedCommand.pathsIn(""));
    }

    @Test
    void asRootEveryFileTheProgramMayRunAsCodeMustBeRootsAlone() throws Exception {
        assumeTrue(Ownership.runningAsRoot(), "the root-only rule is about files other users own: only root can make them (CI runs as root)");
        Path marker = dir.resolve("ran");
        Path userDir = Files.createDirectories(dir.resolve("user"));
        Path payload = script(userDir.resolve("s.sh"), "touch " + marker);
        Files.setPosixFilePermissions(payload, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path awk = Files.writeString(userDir.resolve("prog.awk"), "BEGIN { system(\"touch " + marker + "\") }\n");
        Files.setAttribute(userDir, "unix:uid", NOBODY);
        String why = "directory " + userDir + " is owned by uid 65534, not root";
        for (List<String> command : List.of(
                List.of("/usr/bin/env", "bash", payload.toString()),
                List.of("env", "-i", "sh", payload.toString()),
                List.of("timeout", "5", "sh", payload.toString()),
                List.of("sh", payload.toString().substring(1)),
                List.of("awk", "-f", awk.toString()),
                List.of("awk", "--file=" + awk))) {
            UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> TrustedCommand.prepare(command, true), command.toString());
            assertEquals(why, e.getMessage(), command.toString());
        }
        Path viaShebang = script(dir.resolve("wrapper.sh"), "exit 0");
        Files.writeString(viaShebang, "#!" + payload + "\n");
        assertEquals(why, assertThrows(UntrustedPathException.class, () -> TrustedCommand.prepare(List.of(viaShebang.toString()), true)).getMessage());
        Path envShebang = script(dir.resolve("env.sh"), "exit 0");
        Files.writeString(envShebang, "#!/usr/bin/env " + payload + "\n");
        assertEquals(why, assertThrows(UntrustedPathException.class, () -> TrustedCommand.prepare(List.of(envShebang.toString()), true)).getMessage());
        assertTrue(Files.notExists(marker), "nothing refused ran");

        Path sticky = Files.createDirectories(dir.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777); // like /tmp
        UntrustedPathException later = assertThrows(UntrustedPathException.class,
                () -> TrustedCommand.prepare(List.of("sh", sticky.resolve("not-yet.sh").toString()), true));
        assertTrue(later.getMessage().contains("so another user could create it"), later.getMessage());

        Path fine = script(dir.resolve("fine.sh"), "echo \"$1\"");
        assertEquals(dir.resolve("missing") + "\n", run(List.of(fine.toString(), dir.resolve("missing").toString()), true).stdout(),
                "a file that does not exist where only root can create it is fine");
        assertEquals("ok\n", run(List.of("/usr/bin/env", "sh", fine.toString(), "ok"), true).stdout());
    }
}
