package dev.nhc.cli;

import dev.nhc.engine.config.Ownership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 13, items 3, 4 and 8, through the packaged bin/nhc: what nhc keeps in state_dir and
 * writes to log_file. The tests that need other users' files or a small full disk (a tmpfs) run
 * as root, as CI does, and are skipped otherwise.
 */
class StateSafetyIT {
    @TempDir
    Path tmp;
    private Path dir;
    private final List<Path> mounts = new ArrayList<>();

    @AfterEach
    void unmount() throws Exception {
        for (Path m : mounts) {
            new ProcessBuilder("umount", "-l", m.toString()).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Path dir() throws Exception {
        if (dir == null) {
            dir = tmp.toRealPath();
        }
        return dir;
    }

    private static void assumeRoot() {
        assumeTrue(Ownership.runningAsRoot(), "skipped: needs root (files owned by another user, a tmpfs mount); CI runs as root");
    }

    /** A small tmpfs only root can write, or the test is skipped (no mount permission in this container). */
    private Path tmpfs(String name, String options) throws Exception {
        assumeRoot();
        Path m = Files.createDirectory(dir().resolve(name));
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options + ",mode=0700", "tmpfs", m.toString())
                .redirectErrorStream(true).start();
        assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0,
                "skipped: cannot mount a tmpfs here: " + new String(p.getInputStream().readAllBytes()));
        mounts.add(m);
        return m;
    }

    private static void fill(Path mount) throws Exception {
        Process dd = new ProcessBuilder("dd", "if=/dev/zero", "of=" + mount.resolve("filler"), "bs=4k").redirectErrorStream(true).start();
        dd.getInputStream().readAllBytes();
        dd.waitFor(30, TimeUnit.SECONDS);
    }

    private Path config(Path state, String extraSettings, String checks) throws Exception {
        return Files.writeString(dir().resolve("nhc.yaml"), "nhc: 1\nsettings: { state_dir: " + state + extraSettings + " }\nchecks:\n" + checks);
    }

    private static final String XID = "  - { name: xid, use: gpu.xid, with: { log: /var/log/kern.log } }\n";

    @Test
    void aLatchedXidSurvivesAnEmptiedStateFileAndALostStateIsUnknownNeverAPass() throws Exception {
        Path root = dir().resolve("root");
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-1\n");
        Path kern = Files.createDirectories(root.resolve("var/log")).resolve("kern.log");
        Files.writeString(kern, "[5.0] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus\n");
        Path state = dir().resolve("state");
        Path cfg = config(state, ", root: " + root, XID);

        NhcProcess.Result first = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(1, first.exit(), first.out() + first.err());

        Files.writeString(kern, "[9.0] usb 1-1: new device\n"); // rotated: the XID line is gone
        Files.write(state.resolve("check.xid.json"), new byte[0]);
        NhcProcess.Result second = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(1, second.exit(), "the latch survives from the previous generation: " + second.out() + second.err());
        assertTrue(second.out().contains("XID 79"), second.out());

        Files.write(state.resolve("check.xid.json"), new byte[0]);
        Files.write(state.resolve("check.xid.json.prev"), new byte[0]);
        for (int run = 0; run < 2; run++) {
            NhcProcess.Result lost = NhcProcess.run(dir(), Map.of(), "run", "--json", "-c", cfg.toString());
            assertEquals(0, lost.exit(), lost.out() + lost.err());
            assertTrue(lost.out().contains("\"severity\":\"unknown\"") || lost.out().contains("\"severity\": \"unknown\""), lost.out());
            assertTrue(lost.out().contains("state unreadable: could not read check.xid.json (is empty) or check.xid.json.prev (is empty)"),
                    "run " + run + " says why, and keeps saying it: " + lost.out());
        }
    }

    @Test
    void onAFullStateDiskWithoutALockFileARunStillJudgesAndSaysWhatItCouldNotSave() throws Exception {
        Path state = tmpfs("full", "size=64k");
        fill(state);
        Path cfg = config(state, "", "  - { name: ok, use: command, every: 1m, with: { command: [/bin/true] } }\n"
                + "  - { name: bad, use: command, with: { command: [/bin/false] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("/bin/false exited with 1"), r.out());
        assertTrue(r.out().contains("could not save state: cannot write " + state + "/"), r.out());
        assertTrue(r.out().contains("No space left on device"), r.out());
    }

    @Test
    void whenNotEvenTheLockFileCanBeCreatedTheRunLocksElsewhereOrGoesOnAndSaysSo() throws Exception {
        Path state = tmpfs("noinodes", "size=64k,nr_inodes=1");
        Path cfg = config(state, "", "  - { name: ok, use: command, every: 1m, with: { command: [/bin/true] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("locked /run/nhc/state") || r.out().contains("running without the run lock"), r.out());
        assertTrue(r.out().contains("cannot create " + state.resolve("nhc.lock") + ": No space left on device"), r.out());
        assertTrue(r.out().contains("could not save state"), r.out());
        Files.deleteIfExists(Path.of("/run/nhc/state" + state.toString().replace('/', '_') + ".lock"));
    }

    @Test
    void asRootALockLinkInAnotherUsersStateDirectoryNeverGetsARootFileOverwritten() throws Exception {
        assumeRoot();
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path precious = Files.writeString(dir().resolve("root-only"), "root's secret\n");
        Files.setPosixFilePermissions(precious, PosixFilePermissions.fromString("rw-------"));
        Path state = Files.createDirectory(dir().resolve("state"));
        Files.createSymbolicLink(state.resolve("nhc.lock"), precious);
        Files.setAttribute(state, "unix:uid", 65534);
        Path cfg = config(state, "", "  - { name: ok, use: command, with: { command: [/bin/true] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("will not use state directory " + state + ": directory " + state + " is owned by uid 65534, not root"), r.err());
        assertTrue(r.err().contains("nothing was done"), r.err());
        assertEquals("root's secret\n", Files.readString(precious));

        Files.setAttribute(state, "unix:uid", 0); // root's directory, but a link where the lock goes
        NhcProcess.Result link = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(3, link.exit(), link.out() + link.err());
        assertTrue(link.err().contains(state.resolve("nhc.lock") + " is a symbolic link, not a regular file"), link.err());
        assertEquals("root's secret\n", Files.readString(precious));
    }

    @Test
    void aLogFileLinkIsNotFollowed() throws Exception {
        Path precious = Files.writeString(dir().resolve("root-only"), "root's secret\n");
        Path link = Files.createSymbolicLink(dir().resolve("nhc.log"), precious);
        Path cfg = config(dir().resolve("state"), ", log_file: " + link + ", log_level: info",
                "  - { name: ok, use: command, with: { command: [/bin/true] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        if (Ownership.runningAsRoot()) {
            // as root the config names a file root must not write: a config error at its place, nothing runs
            assertEquals(2, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("nhc.yaml:2:") && r.err().contains("'log_file' in settings: refusing to write to " + link
                    + " as root: " + link + " is a symbolic link, not a regular file"), r.err());
        } else {
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("not logging to " + link + " (settings.log_file): " + link + " is a symbolic link, not a regular file"),
                    r.err());
        }
        assertEquals("root's secret\n", Files.readString(precious));
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void asRootALogFileAnotherUserOwnsIsNotWritten() throws Exception {
        assumeRoot();
        Path theirs = Files.writeString(dir().resolve("nhc.log"), "");
        Files.setAttribute(theirs, "unix:uid", 65534);
        Path cfg = config(dir().resolve("state"), ", log_file: " + theirs + ", log_level: info",
                "  - { name: ok, use: command, with: { command: [/bin/true] } }\n");
        NhcProcess.Result r = NhcProcess.run(dir(), Map.of(), "run", "-c", cfg.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("'log_file' in settings: refusing to write to " + theirs + " as root: " + theirs
                + " is owned by uid 65534, not root"), r.err());
        assertEquals(0, Files.size(theirs));

        Path ours = dir().resolve("ours.log");
        Path good = config(dir().resolve("state"), ", log_file: " + ours + ", log_level: info",
                "  - { name: ok, use: command, with: { command: [/bin/true] } }\n");
        NhcProcess.Result logged = NhcProcess.run(dir(), Map.of(), "run", "-c", good.toString());
        assertEquals(0, logged.exit(), logged.out() + logged.err());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ours)));
    }
}
