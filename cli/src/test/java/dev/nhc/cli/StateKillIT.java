package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 3 with real kills: the packaged bin/nhc, latching XID 79 in a run that follows a
 * passing one, is killed with SIGKILL at the n-th change it makes to its check's state files (the
 * temp file created and written, renamed into place, the copy created, written and renamed), for
 * every n. Whatever the kill left, the next run fails with the XID while the log still holds its
 * line; and once the log is rotated so that only the state can remember it, the next run still
 * never passes when the kill left a whole latching generation anywhere in the directory (its file,
 * its copy, or the temp file a recovery must find).
 */
class StateKillIT {
    private static final String XID = "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python3, GPU has fallen off the bus.";

    @TempDir
    Path tmp;

    @Test
    void aRunKilledAtAnyChangeToItsStateNeverLeavesANodeThatPasses() throws Exception {
        Path dir = tmp.toRealPath();
        Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-1\n");
        Path kern = Files.createDirectories(root.resolve("var/log")).resolve("kern.log");
        Path state = dir.resolve("state");
        Path cfg = Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\nsettings: { state_dir: " + state + ", root: " + root
                + ", deadline: 30s }\nchecks:\n  - { name: xid, use: gpu.xid, with: { log: /var/log/kern.log } }\n");

        Files.writeString(kern, "[1.0] usb 1-1: new high-speed USB device\n");
        NhcProcess.Result before = NhcProcess.run(dir, Map.of(), "run", "-c", cfg.toString());
        assertEquals(0, before.exit(), before.out() + before.err());
        Files.writeString(kern, "[2.0] " + XID + "\n", java.nio.file.StandardOpenOption.APPEND);
        Map<String, byte[]> passed = snapshot(state);

        List<String> seen = new ArrayList<>();
        int withLatchLeft = 0;
        int changes = Integer.MAX_VALUE;
        for (int n = 1; n <= changes; n++) {
            restore(state, passed);
            Killed k = runKilledAt(dir, state, cfg, n);
            if (!k.killed()) {
                changes = n - 1; // a whole run makes this many changes: every one has had its kill
                assertEquals(1, k.exit(), "the unkilled latching run fails");
                break;
            }
            Map<String, byte[]> left = snapshot(state);
            String at = "killed at change " + n + " (" + k.change() + "), leaving " + left.keySet();
            seen.add(at);

            NhcProcess.Result kept = NhcProcess.run(dir, Map.of(), "run", "-c", cfg.toString());
            assertEquals(1, kept.exit(), at + ", the line still in the log: " + kept.out() + kept.err());
            assertTrue(kept.out().contains("XID 79"), at + ": " + kept.out());

            restore(state, left);
            String log = Files.readString(kern);
            Files.writeString(kern, "[9.0] usb 1-1: USB disconnect\n"); // rotated: only the state can remember the XID
            NhcProcess.Result rotated = NhcProcess.run(dir, Map.of(), "run", "-c", cfg.toString());
            if (left.entrySet().stream().anyMatch(e -> e.getKey().contains("check.xid.json") && wholeWithLatch(e.getValue()))) {
                withLatchLeft++;
                assertEquals(1, rotated.exit(), at + ", the log rotated: " + rotated.out() + rotated.err());
                assertTrue(rotated.out().contains("XID 79"), at + ": " + rotated.out());
            }
            Files.writeString(kern, log);
        }
        System.out.println("StateKillIT: " + String.join("\n  ", seen));
        assertTrue(changes >= 4 && changes < Integer.MAX_VALUE, "changes per latching write: " + changes + "; " + seen);
        assertTrue(withLatchLeft > 0, "no kill left the latch on disk, so the rotated log was never judged from state alone: " + seen);
    }

    private record Killed(boolean killed, int exit, String change) {
    }

    /** Runs nhc and kills it with SIGKILL right after the n-th change to a check.xid state file, if it makes that many. */
    private static Killed runKilledAt(Path dir, Path state, Path cfg, int n) throws Exception {
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            state.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
            Process p = NhcProcess.start(Map.of(), dir, "run", "-c", cfg.toString());
            int count = 0;
            String change = null;
            while (p.isAlive() && change == null) {
                WatchKey key;
                try {
                    key = watch.poll(50, TimeUnit.MILLISECONDS);
                } catch (ClosedWatchServiceException e) {
                    break;
                }
                if (key == null) {
                    continue;
                }
                for (WatchEvent<?> e : key.pollEvents()) {
                    if (e.context() instanceof Path f && f.toString().contains("check.xid.json") && ++count == n && change == null) {
                        p.destroyForcibly(); // SIGKILL: bin/nhc execs the JVM, so this is nhc itself
                        change = e.kind().name() + " " + f;
                    }
                }
                key.reset();
            }
            p.waitFor(60, TimeUnit.SECONDS);
            return new Killed(change != null, p.exitValue(), change);
        }
    }

    /** A state file as nhc writes it whole (it ends its object) that holds a latched XID. */
    private static boolean wholeWithLatch(byte[] file) {
        String text = new String(file, java.nio.charset.StandardCharsets.UTF_8);
        return text.strip().endsWith("}") && text.contains("\"xid.latched\"");
    }

    private static Map<String, byte[]> snapshot(Path dir) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p) && !p.getFileName().toString().equals("nhc.lock")) {
                    out.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }

    private static void restore(Path dir, Map<String, byte[]> files) throws Exception {
        try (Stream<Path> all = Files.list(dir)) {
            for (Path p : all.toList()) {
                if (Files.isRegularFile(p) && !p.getFileName().toString().equals("nhc.lock") && !files.containsKey(p.getFileName().toString())) {
                    Files.delete(p);
                }
            }
        }
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
    }
}
