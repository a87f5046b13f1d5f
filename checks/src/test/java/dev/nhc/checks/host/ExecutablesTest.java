package dev.nhc.checks.host;

import dev.nhc.engine.process.TrustedCommand;
import org.junit.jupiter.api.Assumptions;
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

/** The tools probes run themselves follow the rules of every program root runs. */
class ExecutablesTest {
    @TempDir
    Path dir;

    @Test
    void aBareNameIsLookedUpInTheSystemDirectoriesOnlyNeverUsrLocal() {
        Executables.Unusable e = assertThrows(Executables.Unusable.class, () -> Executables.prepare(List.of("nhc-no-such-tool"), false));
        assertTrue(e.notFound());
        assertEquals("nhc-no-such-tool not found in /usr/sbin, /usr/bin, /sbin, /bin", e.getMessage());
    }

    @Test
    void asRootAToolAnotherUserCanChangeIsRefused() throws Exception {
        Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "the ownership rule applies to root");
        Path tool = dir.resolve("systemctl");
        Files.writeString(tool, "#!/bin/sh\necho ActiveState=active\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxrwxrwx"));
        Executables.Unusable e = assertThrows(Executables.Unusable.class, () -> Executables.prepare(List.of(tool.toString(), "show")));
        assertFalse(e.notFound());
        assertTrue(e.getMessage().startsWith("refusing to run " + tool + " as root: " + tool + " is "), e.getMessage());

        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (TrustedCommand cmd = Executables.prepare(List.of(tool.toString(), "show"))) {
            assertEquals("ActiveState=active", Executables.runner(cmd).run().firstLine());
        }
    }

    /** A systemd unit's state is not read with a systemctl another user could have replaced. */
    @Test
    void systemctlIsRunUnderTheSameRules() throws Exception {
        Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "the ownership rule applies to root");
        Path tool = dir.resolve("systemctl");
        Files.writeString(tool, "#!/bin/sh\necho ActiveState=active\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxrwxrwx"));
        SystemdUnits.Unreadable e = assertThrows(SystemdUnits.Unreadable.class,
                () -> SystemdUnits.show(tool.toString(), "x.service", java.time.Duration.ofSeconds(5)));
        assertTrue(e.getMessage().startsWith("refusing to run " + tool + " as root"), e.getMessage());
    }
}
