package dev.nhc.engine.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Kills what a program started: its tree as the JDK sees it, and every process still carrying its
 * tag wherever it was reparented (see {@link ProcessRunner}). Root kills here, so every kill goes
 * through a handle that pins the process's start time.
 */
final class ProcessTreeKill {
    private ProcessTreeKill() {
    }

    /**
     * Kills the processes whose environment carries {@code tag}: children the program left behind,
     * wherever they were reparented. Repeats until a pass finds nobody new, so that a tree still
     * forking while it is killed (a killed process forks no more) is caught whole.
     */
    static int killTagged(String tag) {
        byte[] marker = (ProcessRunner.TAG_VAR + "=" + tag).getBytes(StandardCharsets.UTF_8);
        Set<Long> killed = new java.util.HashSet<>();
        for (int pass = 0; pass < 50; pass++) {
            if (killTaggedOnce(marker, killed) == 0) {
                break;
            }
        }
        return killed.size();
    }

    /** One pass over /proc; returns how many tagged processes it killed that earlier passes had not. */
    private static int killTaggedOnce(byte[] marker, Set<Long> killed) {
        long self = ProcessHandle.current().pid();
        int n = 0;
        try (java.nio.file.DirectoryStream<java.nio.file.Path> procs = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc"),
                e -> e.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (java.nio.file.Path dir : procs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == self || killed.contains(pid)) {
                    continue;
                }
                // The handle first: it holds the process's start time, and destroyForcibly kills only a process
                // with that start time. Taken after reading environ, the pid could meanwhile name an unrelated
                // process that root would kill.
                Optional<ProcessHandle> h = ProcessHandle.of(pid);
                if (h.isEmpty()) {
                    continue;
                }
                try {
                    if (contains(java.nio.file.Files.readAllBytes(dir.resolve("environ")), marker)) {
                        if (h.get().isAlive() && h.get().destroyForcibly()) {
                            killed.add(pid);
                            n++;
                        }
                    }
                } catch (IOException | SecurityException e) {
                    // gone already, or not ours to read
                }
            }
        } catch (IOException e) {
            // no /proc: nothing more can be found
        }
        return n;
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (i > 0 && hay[i - 1] != 0) {
                continue; // variables start after a NUL
            }
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Returns {program killed (0 or 1), descendants killed}. */
    static int[] killTree(Process p, Set<ProcessHandle> seen) {
        List<ProcessHandle> all = new ArrayList<>();
        p.descendants().forEach(all::add);
        for (ProcessHandle h : seen) {
            if (!all.contains(h)) {
                all.add(h);
            }
        }
        int self = 0;
        if (p.isAlive()) {
            p.destroyForcibly();
            self = 1;
        }
        int n = 0;
        for (ProcessHandle h : all) {
            // A handle compares pid and start time, so a recycled pid is never killed by mistake.
            if (h.isAlive() && h.destroyForcibly()) {
                n++;
            }
        }
        try {
            p.waitFor(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new int[] {self, n};
    }
}
