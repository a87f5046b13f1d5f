package dev.nhc.engine.process;

import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.testing.TrustFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.nhc.engine.testing.TrustFixtures.assumeRoot;
import static dev.nhc.engine.testing.TrustFixtures.nobodys;
import static dev.nhc.engine.testing.TrustFixtures.script;

/** Real programs started through their descriptor; the root-only rules need root (CI) and are skipped otherwise. */
class TrustedCommandTest {
    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = TrustFixtures.rootOnly(tmp);
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
        assertEquals(s + "|a b||/", lines[0], "$0 is the descriptor, shown as the script it is");
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
    void errorsNameTheProgramNotItsDescriptor() throws Exception {
        ProcessRunner.Result r = run(List.of("id", "nhc-no-such-user-xq"), false);
        assertTrue(r.stderr().startsWith("id: "), r.stderr());
        assertFalse(r.stderr().contains("/proc/"), r.stderr());
        Path s = script(dir.resolve("broken.sh"), "no-such-command-xq");
        ProcessRunner.Result b = run(List.of(s.toString()), false);
        assertTrue(b.stderr().startsWith(s + ": "), "the shell's message names the script: " + b.stderr());
        Path lines = script(dir.resolve("lines.sh"), "echo \"$0\"; echo \"$0\"1");
        List<String> seen = new java.util.ArrayList<>();
        try (TrustedCommand c = TrustedCommand.prepare(List.of(lines.toString()), false)) {
            c.runner().onStdoutLine(seen::add).run();
            assertEquals(List.of(lines.toString(), c.argv().get(0) + "1"), seen,
                    "streamed lines too; a longer descriptor number is not the program's");
        }
    }

    @Test
    void pathsInsideCodeAreFound() throws Exception {
        assertEquals(List.of(Path.of("/exec /x/check.sh"), Path.of("/x/check.sh")), TrustedCommand.pathsIn("exec /x/check.sh"));
        assertTrue(TrustedCommand.pathsIn("exec(open('/x/c.py').read())").contains(Path.of("/x/c.py")));
        assertTrue(TrustedCommand.pathsIn("do \"/x/p.pl\"; require('/y/m.js')").containsAll(List.of(Path.of("/x/p.pl"), Path.of("/y/m.js"))));
        assertTrue(TrustedCommand.pathsIn("PATH=/x/bin:$PATH check").contains(Path.of("/x/bin")));
        assertTrue(TrustedCommand.pathsIn("for f in /x/*.sh; do $f; done").contains(Path.of("/x")), "a glob gives its directory");
        assertTrue(TrustedCommand.pathsIn("cd /x && ./run").contains(Path.of("/x")));
        assertTrue(TrustedCommand.pathsIn("awk -f/x/prog").contains(Path.of("/x/prog")));
        assertTrue(TrustedCommand.pathsIn("exec ~/bin/c").contains(Path.of("/root/bin/c")), "~ is root's home");
        UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> TrustedCommand.pathsIn("exec ~alice/check.sh"));
        assertTrue(e.getMessage().contains("~alice's home directory"), e.getMessage());
        assertEquals(List.of(Path.of("/x = 1 + 2"), Path.of("/usr/sbin/x = 1 + 2"), Path.of("/usr/bin/x = 1 + 2"), Path.of("/sbin/x = 1 + 2"),
                Path.of("/bin/x = 1 + 2")), TrustedCommand.pathsIn("x = 1 + 2"), "no slash, no path inside");
    }

    @Test
    void asRootAPathInsideAnInterpretersCodeMustBeRootsAlone() throws Exception {
        assumeRoot();
        Path marker = dir.resolve("ran");
        Path userDir = dir.resolve("home-user");
        Path payload = nobodys(script(userDir.resolve("check.sh"), "touch " + marker));
        Path py = nobodys(Files.writeString(userDir.resolve("c.py"), "open('" + marker + "', 'w').close()\n"));
        nobodys(userDir);
        String why = "directory " + userDir + " is owned by uid 65534, not root";
        for (List<String> command : List.of(
                List.of("/bin/sh", "-c", "exec " + payload),
                List.of("bash", "-c", "cd " + userDir + " && ./check.sh"),
                List.of("python3", "-c", "exec(open('" + py + "').read())"),
                List.of("perl", "-e", "do \"" + py + "\""),
                List.of("sh", "-c", "PATH=" + userDir + ":$PATH check.sh"))) {
            assertEquals(why, assertThrows(UntrustedPathException.class, () -> TrustedCommand.prepare(command, true), command.toString())
                    .getMessage(), command.toString());
            assertEquals(why, assertThrows(UntrustedPathException.class, () -> TrustedCommand.check(command), command.toString())
                    .getMessage(), "check() holds the same rule without opening: " + command);
        }
        assertTrue(Files.notExists(marker), "nothing refused ran");
        assertEquals("0\n", run(List.of("sh", "-c", "echo $#; exec true /etc/hostname"), true).stdout(), "root's own paths in code are fine");
        try (TrustedCommand c = TrustedCommand.prepare(List.of("/bin/echo", "Reason=NHC: " + payload + " is missing"), true,
                TrustedCommand.Arguments.DATA)) {
            assertEquals("Reason=NHC: " + payload + " is missing\n", c.runner().run().stdout(),
                    "nhc's own data (a drain reason quoting a path) is not held to the rule");
        }
    }

    @Test
    void theArgumentsANamedFileCanHide() throws Exception {
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
        assumeRoot();
        Path marker = dir.resolve("ran");
        Path userDir = Files.createDirectories(dir.resolve("user"));
        Path payload = script(userDir.resolve("s.sh"), "touch " + marker);
        Files.setPosixFilePermissions(payload, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path awk = Files.writeString(userDir.resolve("prog.awk"), "BEGIN { system(\"touch " + marker + "\") }\n");
        nobodys(userDir);
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
