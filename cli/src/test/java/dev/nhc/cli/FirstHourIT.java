package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a new user meets following the README top to bottom, as the packaged bin/nhc prints it. */
class FirstHourIT {
    @TempDir
    Path dir;

    @Test
    void dashDashVersionIsTheVersionCommand() throws Exception {
        NhcProcess.Result flag = NhcProcess.run(dir, Map.of(), "--version");
        NhcProcess.Result command = NhcProcess.run(dir, Map.of(), "version");
        assertEquals(0, flag.exit(), flag.err());
        assertTrue(flag.out().startsWith("nhc "), flag.out());
        assertEquals(command.out(), flag.out());
    }

    @Test
    void listDocumentsTheSettingsAndTheKeysOfACheck() throws Exception {
        NhcProcess.Result settings = NhcProcess.run(dir, Map.of(), "list", "settings");
        assertEquals(0, settings.exit(), settings.err());
        assertTrue(settings.out().startsWith("settings:\n"), settings.out());
        assertTrue(settings.out().contains("check_timeout"), settings.out());
        assertFalse(settings.out().lines().anyMatch(l -> l.startsWith("disk.usage")), "settings alone: " + settings.out());
        NhcProcess.Result check = NhcProcess.run(dir, Map.of(), "list", "check");
        assertTrue(check.out().contains("slurm_state"), check.out());
        NhcProcess.Result typo = NhcProcess.run(dir, Map.of(), "list", "setings");
        assertEquals(2, typo.exit());
        assertTrue(typo.err().contains("did you mean 'settings'"), typo.err());
    }

    /** "> 98%", as a config may write it, not "> 98"; and which of fail and unknown decides when both have a rule. */
    @Test
    void listShowsDefaultRulesWithUnitsAndWhichOfFailAndUnknownApplies() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "list", "disk.usage");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("fail: { used_percent: \"> 98%\" }"), r.out());
        assertTrue(r.out().contains("warn: { used_percent: \"> 90%\" }"), r.out());
        assertTrue(r.out().contains("unknown: { mounted: false }  when: { with.if_unmounted: fail }  message: \"{entity} is not mounted\"  (the fail rule above decides first; "
                + "this one applies when a check's own fail: replaces it)"), r.out());
    }

    @Test
    void aVerbosePassSaysWhatItComparedAndTheLimits() throws Exception {
        Path c = Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + " }\n"
                + "checks:\n  - { name: root-space, use: disk.usage, with: { mount: / } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "--verbose", "-c", c.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("\\S+\\s+root-space\\s+disk\\.usage\\s+\\d+ms\\s+/: used_percent [0-9.]+% "
                + "\\(fail if > 98%, warn if > 90%\\), .*")), r.out());
    }

    /** The check's own limit, not the moment the script was killed at a little before it. */
    @Test
    void aTimeoutSaysTheConfiguredLimit() throws Exception {
        Path hang = Files.writeString(dir.resolve("hang.sh"), "#!/bin/sh\nsleep 60\n");
        Files.setPosixFilePermissions(hang, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path c = Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + ", check_timeout: 2s }\n"
                + "checks:\n  - { name: site, use: script, with: { command: [" + hang + "] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "--verbose", "-c", c.toString());
        // Killed by the probe, or (on a machine too busy for the probe to report in time) abandoned by the run: 2s either way.
        assertTrue(r.out().contains("UNKNOWN site: script " + hang + " did not finish within 2s; killed it")
                || r.out().contains("UNKNOWN site: probe script did not finish within 2s; abandoned"), r.out());
        assertFalse(r.out().matches("(?s).*within \\d+\\.\\d+ ?s.*"), "the limit as configured, not as measured: " + r.out());
    }
}
