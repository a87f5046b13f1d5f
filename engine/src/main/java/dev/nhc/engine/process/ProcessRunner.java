package dev.nhc.engine.process;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Runs an external tool (dcgmi, a site's diagnostic script) the way root can afford to: argv
 * only (no shell ever sees a config value), a clean environment, stdin from /dev/null, a time
 * limit, and output capped but always drained so a chatty child never blocks on a full pipe.
 *
 * <p>When the tool finishes or its time is up, every process it started is killed too, including
 * children that detached from it. Java cannot put the child in a new process group, so each run
 * marks its environment with {@value #TAG_VARIABLE}; descendants inherit it, and after the run
 * every process in /proc that still carries the mark is killed. A child that wipes its own
 * environment escapes this, but then it also no longer holds our pipes open for long: the
 * readers stop waiting after {@link #PIPE_GRACE}.
 */
public final class ProcessRunner {
    /** The only PATH a tool gets unless the config adds its own variables. */
    public static final String SAFE_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
    public static final String TAG_VARIABLE = "NHC_RUN_ID";
    static final Duration PIPE_GRACE = Duration.ofSeconds(2);

    private final List<String> command;
    private final Map<String, String> env = new LinkedHashMap<>();
    private Duration timeout = Duration.ofSeconds(10);
    private int outputCap = 1 << 20;
    private Path directory = Path.of("/");
    private Path procRoot = Path.of("/proc");

    private ProcessRunner(List<String> command) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        this.command = List.copyOf(command);
        env.put("PATH", SAFE_PATH);
    }

    public static ProcessRunner of(List<String> command) {
        return new ProcessRunner(command);
    }

    public static ProcessRunner of(String... command) {
        return new ProcessRunner(List.of(command));
    }

    /** Adds variables to the clean environment (a configured PATH replaces the safe one). */
    public ProcessRunner env(Map<String, String> vars) {
        env.putAll(vars);
        return this;
    }

    public ProcessRunner timeout(Duration d) {
        this.timeout = Objects.requireNonNull(d);
        return this;
    }

    /** Bytes kept of stdout and of stderr each; the rest is read and dropped. */
    public ProcessRunner outputCap(int bytes) {
        this.outputCap = bytes;
        return this;
    }

    public ProcessRunner directory(Path dir) {
        this.directory = dir;
        return this;
    }

    /**
     * Runs the command to completion or until the timeout. Throws IOException when it cannot be
     * started at all (missing, not executable), with the command named in the message.
     * If the calling thread is interrupted (the runner abandoned the check), the process tree is
     * killed before the InterruptedException propagates.
     */
    public ProcessOutcome run() throws IOException, InterruptedException {
        String tag = UUID.randomUUID().toString();
        ProcessBuilder pb = new ProcessBuilder(command).directory(directory.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put(TAG_VARIABLE, tag);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + ": " + reason(e), e);
        }
        Drain out = new Drain(p.getInputStream(), outputCap, command.get(0) + " stdout");
        Drain err = new Drain(p.getErrorStream(), outputCap, command.get(0) + " stderr");
        boolean finished;
        try {
            finished = p.waitFor(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            killTree(p, tag);
            throw e;
        }
        int killed;
        if (!finished) {
            killed = killTree(p, tag);
            p.waitFor(PIPE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            killed = killTagged(tag, -1);
        }
        boolean complete = out.await(PIPE_GRACE) & err.await(PIPE_GRACE);
        long ms = (System.nanoTime() - start) / 1_000_000;
        int exit = p.isAlive() ? -1 : p.exitValue();
        return new ProcessOutcome(command, finished ? exit : -1, !finished, out.text(), err.text(),
                out.total(), out.truncated() || err.truncated(), complete, killed, ms);
    }

    /** Kills the tool, everything below it, and every process that still carries its mark. Returns how many besides the tool. */
    private int killTree(Process p, String tag) {
        Set<ProcessHandle> victims = new LinkedHashSet<>();
        p.toHandle().descendants().forEach(victims::add);
        p.destroyForcibly();
        int n = 0;
        for (ProcessHandle h : victims) {
            if (h.destroyForcibly()) {
                n++;
            }
        }
        return n + killTagged(tag, p.pid());
    }

    private int killTagged(String tag, long except) {
        byte[] needle = (TAG_VARIABLE + "=" + tag).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        int n = 0;
        List<Path> pids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(procRoot, "[0-9]*")) {
            ds.forEach(pids::add);
        } catch (IOException e) {
            return 0;
        }
        for (Path dir : pids) {
            long pid;
            try {
                pid = Long.parseLong(dir.getFileName().toString());
            } catch (NumberFormatException e) {
                continue;
            }
            if (pid == self || pid == except) {
                continue;
            }
            byte[] environ;
            try {
                environ = Files.readAllBytes(dir.resolve("environ"));
            } catch (IOException e) {
                continue; // gone, or not ours to read
            }
            if (containsEntry(environ, needle)) {
                n += ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false) ? 1 : 0;
            }
        }
        return n;
    }

    private static boolean containsEntry(byte[] environ, byte[] entry) {
        int i = 0;
        while (i < environ.length) {
            int end = i;
            while (end < environ.length && environ[end] != 0) {
                end++;
            }
            if (end - i == entry.length && java.util.Arrays.equals(environ, i, end, entry, 0, entry.length)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    private static String reason(IOException e) {
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        // "Cannot run program "x": error=2, No such file or directory" → the part after the errno
        int i = m.indexOf("error=");
        if (i >= 0) {
            int comma = m.indexOf(", ", i);
            return comma >= 0 ? m.substring(comma + 2) : m.substring(i);
        }
        return m;
    }

    /** Reads one pipe to its end on its own thread, keeping the first {@code cap} bytes. */
    private static final class Drain {
        private final byte[] buf;
        private int kept;
        private long total;
        private final Thread thread;

        Drain(InputStream in, int cap, String name) {
            this.buf = new byte[Math.max(0, cap)];
            this.thread = new Thread(() -> pump(in), "drain " + name);
            thread.setDaemon(true);
            thread.start();
        }

        private void pump(InputStream in) {
            byte[] chunk = new byte[8192];
            try (in) {
                int r;
                while ((r = in.read(chunk)) > 0) {
                    synchronized (this) {
                        int room = buf.length - kept;
                        if (room > 0) {
                            int n = Math.min(room, r);
                            System.arraycopy(chunk, 0, buf, kept, n);
                            kept += n;
                        }
                        total += r;
                    }
                }
            } catch (IOException e) {
                // the stream was closed under us after the grace period; what we have is what we report
            }
        }

        boolean await(Duration grace) throws InterruptedException {
            thread.join(Math.max(1, grace.toMillis()));
            return !thread.isAlive();
        }

        synchronized String text() {
            return new String(buf, 0, kept, StandardCharsets.UTF_8);
        }

        synchronized long total() {
            return total;
        }

        synchronized boolean truncated() {
            return total > kept;
        }
    }
}
