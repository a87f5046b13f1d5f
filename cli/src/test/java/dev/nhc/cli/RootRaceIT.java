package dev.nhc.cli;

import dev.nhc.engine.config.Ownership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 13, item 1: nhc as root, while another user flips a symbolic link between a file root
 * owns and one of their own as fast as they can. Before the fix, the check looked at where the
 * link led and the read or exec went through the link again: some runs used the other user's
 * config or script. Every run must now refuse the link, and the other user's file never runs.
 */
class RootRaceIT {
    private static final int NOBODY = 65534;
    private static final int RUNS = 30;

    @TempDir
    Path tmp;
    private Path dir;
    private Path markers;
    private Path attack;
    private Process flipper;

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(Ownership.runningAsRoot(), "skipped: the race needs nhc running as root and a second user to flip links "
                + "(run the process tests as root, as CI does)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "skipped: needs setpriv (util-linux) to run the link flipper as nobody");
        dir = tmp.toRealPath();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        markers = Files.createDirectory(dir.resolve("markers"));
        Files.setPosixFilePermissions(markers, PosixFilePermissions.fromString("rwx------"));
        // A directory everyone may write to, sticky like /tmp: the other user's link and files live there.
        attack = Files.createDirectory(dir.resolve("attack"));
        Files.setAttribute(attack, "unix:mode", 01777);
    }

    @AfterEach
    void stopFlipper() {
        if (flipper != null) {
            flipper.descendants().forEach(ProcessHandle::destroyForcibly);
            flipper.destroyForcibly();
        }
    }

    private Path nobodysFile(String name, String text, String mode) throws Exception {
        Path f = Files.writeString(attack.resolve(name), text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        Files.setAttribute(f, "unix:uid", NOBODY);
        return f;
    }

    /** As nobody: points {@code link} at {@code a}, then at {@code b}, and again, each an atomic rename. */
    private void flip(Path link, Path a, Path b) throws Exception {
        String loop = "while :; do ln -sfn \"$1\" \"$3.new\" && mv -Tf \"$3.new\" \"$3\"; ln -sfn \"$2\" \"$3.new\" && mv -Tf \"$3.new\" \"$3\"; done";
        flipper = new ProcessBuilder("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
                "/bin/sh", "-c", loop, "flip", a.toString(), b.toString(), link.toString())
                .redirectErrorStream(true).redirectOutput(new File("/dev/null")).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(link, LinkOption.NOFOLLOW_LINKS));
        assertEquals(NOBODY, Files.getAttribute(link, "unix:uid", LinkOption.NOFOLLOW_LINKS), "the link is the other user's");
    }

    private List<String> payloads() throws Exception {
        try (var s = Files.list(markers)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    private String config(String checks) {
        return "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + " }\nchecks:\n" + checks;
    }

    @Test
    void aConfigLinkAnotherUserFlipsNeverGetsTheirConfigRead() throws Exception {
        Path good = Files.writeString(dir.resolve("good.yaml"), config("  - { name: ok, use: command, with: { command: [/bin/true] } }\n"));
        Path evil = nobodysFile("evil.yaml", config("  - { name: pwned, use: command, with: { command: [/usr/bin/touch, "
                + markers.resolve("config-read") + "] } }\n"), "rw-r--r--");
        Path link = attack.resolve("nhc.yaml");
        flip(link, good, evil);
        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "-c", link.toString());
            outcomes.add(r.exit() + " " + r.err().lines().findFirst().orElse(""));
            assertTrue(payloads().isEmpty(), "run " + (i + 1) + " read nobody's config as root: " + outcomes);
        }
        for (String o : outcomes) {
            assertTrue(o.startsWith("2 ") && o.contains("symbolic link " + link + " is owned by uid 65534, not root"), o);
        }
    }

    @Test
    void aScriptLinkAnotherUserFlipsNeverGetsTheirScriptRun() throws Exception {
        Path good = Files.writeString(dir.resolve("good.sh"), "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path evil = nobodysFile("evil.sh", "#!/bin/sh\ntouch " + markers.resolve("script-ran") + ".$$\n", "rwxr-xr-x");
        Path link = attack.resolve("check.sh");
        Path cfg = Files.writeString(dir.resolve("nhc.yaml"), config("  - { name: site, use: script, with: { command: [" + link + "] } }\n"));
        flip(link, good, evil);
        List<NhcProcess.Result> results = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            results.add(NhcProcess.run(dir, Map.of(), "run", "-c", cfg.toString()));
            assertTrue(payloads().isEmpty(), "run " + (i + 1) + " ran nobody's script as root: " + payloads());
        }
        for (NhcProcess.Result r : results) {
            // the config names a program in a place another user can change: refused where it is named, before anything runs
            assertEquals(2, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("refusing to run " + link + " as root: symbolic link " + link + " is owned by uid 65534, not root"),
                    r.err());
        }
    }
}
