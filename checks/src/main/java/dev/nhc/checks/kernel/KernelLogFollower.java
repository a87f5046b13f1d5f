package dev.nhc.checks.kernel;

import dev.nhc.checks.host.Executables;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Notices new kernel log lines as they are written, for the daemon: a fatal XID in the log must
 * re-run the kernel-log checks within a second, not at the next interval. It only says "there is
 * something new"; the checks read it through their own cursor as always. {@code /dev/kmsg} and log
 * files are polled every {@link #POLL_MS} ms (a non-blocking read, a stat); the journal is followed
 * by a {@code journalctl -k -f} child. Wake-ups closer together than {@link #POLL_MS} are merged.
 */
public final class KernelLogFollower implements AutoCloseable {
    static final int POLL_MS = 200;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KernelLogFollower.class);

    private final Runnable onNew;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    private KernelLogFollower(Runnable onNew) {
        this.onNew = onNew;
    }

    /**
     * Follows every source ("kmsg", "journal" or a file path; kmsg and files under {@code root}).
     * A source that cannot be followed is left out with its reason in {@code problems}.
     */
    public static KernelLogFollower start(Path root, List<String> sources, String journalctl, Runnable onNew, List<String> problems) {
        KernelLogFollower f = new KernelLogFollower(onNew);
        for (String source : new java.util.LinkedHashSet<>(sources)) {
            try {
                if (source.equals("kmsg")) {
                    f.followKmsg(under(root, KernelLogReader.KMSG_PATH));
                } else if (source.equals("journal")) {
                    f.followJournal(journalctl == null ? "journalctl" : journalctl);
                } else {
                    f.followFile(under(root, source));
                }
            } catch (IOException | RuntimeException e) {
                problems.add("cannot follow kernel log " + source + ": " + e.getMessage());
            }
        }
        return f;
    }

    private static Path under(Path root, String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    private void followKmsg(Path device) throws IOException {
        Kmsg k = Kmsg.open(device.toString());
        open.add(k);
        while (k.next() != null) {
            // what the ring buffer already holds is old news: the checks have read it or will
        }
        poll("nhc-kmsg-follow", () -> {
            boolean any = false;
            while (k.next() != null) {
                any = true;
            }
            return any;
        });
    }

    private void followFile(Path file) {
        Object[] last = {stamp(file)};
        poll("nhc-log-follow", () -> {
            Object now = stamp(file);
            boolean changed = !Objects.equals(now, last[0]);
            last[0] = now;
            return changed;
        });
    }

    /** Size, modification time and inode: a change in any is news (an append, a rotation). */
    private static Object stamp(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return List.of(a.size(), a.lastModifiedTime().toMillis(), String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return null;
        }
    }

    private void followJournal(String journalctl) throws IOException {
        // root runs it for as long as the daemon lives: the same rules as every program nhc runs
        // (system directories only, a root-owned program); the daemon's own environment is not passed on
        TrustedCommand cmd;
        try {
            cmd = Executables.prepare(List.of(journalctl, "-k", "-f", "-n", "0", "-o", "cat"));
        } catch (Executables.Unusable e) {
            throw new IOException(e.getMessage());
        }
        Process p;
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd.argv()).redirectErrorStream(true).directory(new java.io.File("/"))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().clear();
            pb.environment().put("PATH", ProcessRunner.SYSTEM_PATH);
            pb.environment().put("LANG", "C");
            p = pb.start();
        } catch (IOException | RuntimeException e) {
            cmd.close();
            throw e;
        }
        open.add(p::destroyForcibly);
        open.add(cmd);  // after the child: the program's descriptor stays open while it runs
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                long lastWake = 0;
                while (!closed && r.readLine() != null) {
                    long now = System.nanoTime();
                    if (now - lastWake > POLL_MS * 1_000_000L) {
                        lastWake = now;
                        wake();
                    }
                }
            } catch (IOException e) {
                // the child ended (closed, or journald went away): the checks still run on their schedule
            }
        }, "nhc-journal-follow");
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /**
     * Tells the daemon there is something new. A bug behind it must not end the following: the
     * thread would stop silently and fatal XIDs would wait for the next interval.
     */
    private void wake() {
        try {
            onNew.run();
        } catch (RuntimeException e) {
            LOG.warn("acting on new kernel log lines failed; still following", e);
        }
    }

    private interface Poll {
        boolean anythingNew() throws IOException;
    }

    private void poll(String name, Poll p) {
        Thread t = new Thread(() -> {
            while (!closed) {
                try {
                    if (p.anythingNew()) {
                        wake();
                    }
                    Thread.sleep(POLL_MS); // the polling period of a source that offers nothing to wait on
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    // a passing read error: try again at the next poll
                }
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        threads.forEach(Thread::interrupt);
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
    }
}
