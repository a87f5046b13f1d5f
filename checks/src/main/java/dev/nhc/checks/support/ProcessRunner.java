package dev.nhc.checks.support;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs an external program the way a health check must: argv only (never a shell), stdin from
 * /dev/null, output kept up to a cap while the rest is drained and thrown away (so a chatty child
 * never blocks on a full pipe), and a timeout after which the program and every process it
 * started are killed.
 *
 * <pre>{@code
 * ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/systemctl", "show", "-p", "ActiveState", "sshd"))
 *         .timeout(ctx.remaining())
 *         .run();                      // IOException only if it cannot be started
 * if (r.timedOut()) ...; r.exitCode(); r.stdout(); r.firstLine();
 * }</pre>
 *
 * Options: {@link #env} adds variables, {@link #cleanEnvironment} starts from an empty environment
 * (PATH and LANG set to safe values), {@link #outputCap} bytes kept per stream (default 64 KiB),
 * {@link #mergeStderr} interleaves stderr into stdout, {@link #onStdoutLine} streams stdout line
 * by line to a consumer instead of keeping it (for long outputs such as journalctl).
 *
 * <p>No process outlives a run: on timeout the program and its descendants are killed, and after
 * it exits (or is killed) every process still carrying its tag is killed too. The tag is an
 * environment variable ({@code NHC_PROCESS_TAG}, as Jenkins marks build processes) that children
 * inherit, found in /proc/PID/environ, so children that were orphaned and reparented to init are
 * found as well. Only a child that clears its environment and detaches before it is first seen
 * can escape; Java offers no process groups without native code.
 */
public final class ProcessRunner {
    public static final int DEFAULT_OUTPUT_CAP = 64 * 1024;
    /** How long to wait, after the program exited, for children that still hold its output open. */
    private static final Duration ORPHAN_GRACE = Duration.ofMillis(500);
    private static final String TAG_VAR = "NHC_PROCESS_TAG";
    private static final String SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final List<String> argv;
    private final Map<String, String> env = new LinkedHashMap<>();
    private boolean cleanEnv;
    private Duration timeout = Duration.ofSeconds(10);
    private int outputCap = DEFAULT_OUTPUT_CAP;
    private boolean mergeStderr;
    private Consumer<String> stdoutLines;
    private File directory;

    private ProcessRunner(List<String> argv) {
        if (argv == null || argv.isEmpty()) {
            throw new IllegalArgumentException("a command needs at least the program to run");
        }
        this.argv = List.copyOf(argv);
    }

    public static ProcessRunner of(List<String> argv) {
        return new ProcessRunner(argv);
    }

    /**
     * A timeout that ends a little before {@code remaining} (the check's time left), so that the
     * probe still reports "killed after timeout" itself rather than being abandoned by the runner.
     */
    public static Duration within(Duration remaining) {
        Duration margin = remaining.dividedBy(10);
        if (margin.compareTo(Duration.ofMillis(200)) > 0) {
            margin = Duration.ofMillis(200);
        }
        return remaining.minus(margin);
    }

    public ProcessRunner env(Map<String, String> vars) {
        env.putAll(vars);
        return this;
    }

    public ProcessRunner cleanEnvironment() {
        this.cleanEnv = true;
        return this;
    }

    public ProcessRunner timeout(Duration d) {
        this.timeout = Objects.requireNonNull(d);
        return this;
    }

    public ProcessRunner outputCap(int bytes) {
        this.outputCap = Math.max(0, bytes);
        return this;
    }

    public ProcessRunner mergeStderr() {
        this.mergeStderr = true;
        return this;
    }

    /** Delivers each stdout line (without its newline) to {@code sink} on a reader thread; {@link Result#stdout()} is then empty. */
    public ProcessRunner onStdoutLine(Consumer<String> sink) {
        this.stdoutLines = sink;
        return this;
    }

    public ProcessRunner directory(File dir) {
        this.directory = dir;
        return this;
    }

    /**
     * What happened. {@code exitCode} is -1 when the program was killed on timeout.
     * {@code truncated}: more output came than the cap kept. {@code killed}: how many processes
     * (the program and its children) nhc had to kill.
     */
    public record Result(List<String> argv, int exitCode, String stdout, String stderr, boolean timedOut,
                         boolean truncated, Duration elapsed, int killed) {

        /** The first non-blank line of stdout, else of stderr, else "" — the LBNL NHC message convention. */
        public String firstLine() {
            String s = firstNonBlank(stdout);
            return s.isEmpty() ? firstNonBlank(stderr) : s;
        }

        private static String firstNonBlank(String text) {
            for (String line : text.split("\n", -1)) {
                if (!line.isBlank()) {
                    return line.strip();
                }
            }
            return "";
        }
    }

    /** Runs the program to its end or its timeout. Throws only when it cannot be started (not found, not executable). */
    public Result run() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectErrorStream(mergeStderr);
        if (directory != null) {
            pb.directory(directory);
        }
        if (cleanEnv) {
            pb.environment().clear();
            pb.environment().put("PATH", SAFE_PATH);
            pb.environment().put("LANG", "C");
        }
        pb.environment().putAll(env);
        String tag = java.util.UUID.randomUUID().toString();
        pb.environment().put(TAG_VAR, tag);

        long startNanos = System.nanoTime();
        long deadline = startNanos + Math.max(0, timeout.toNanos());
        Process p = pb.start();
        Drain out = new Drain(p.getInputStream(), outputCap, stdoutLines, "stdout of " + argv.get(0));
        Drain err = mergeStderr ? null : new Drain(p.getErrorStream(), outputCap, null, "stderr of " + argv.get(0));

        Set<ProcessHandle> seen = new LinkedHashSet<>();
        boolean exited = false;
        long slice = TimeUnit.MILLISECONDS.toNanos(5);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                if (p.waitFor(Math.min(left, slice), TimeUnit.NANOSECONDS)) {
                    exited = true;
                    break;
                }
                p.descendants().forEach(seen::add);
                slice = Math.min(slice * 2, TimeUnit.MILLISECONDS.toNanos(100));
            }
        } catch (InterruptedException e) {
            // The runner abandoned this check: kill what we started rather than leave it behind.
            Thread.currentThread().interrupt();
        }

        int killed = 0;
        if (!exited) {
            killed = killTree(p, seen);
        } else {
            long grace = Math.min(ORPHAN_GRACE.toNanos(), Math.max(0, deadline - System.nanoTime()));
            if (!out.await(grace) || (err != null && !err.await(grace))) {
                killed = killTree(p, seen);
            }
        }
        killed += killTagged(tag);
        long settle = TimeUnit.SECONDS.toNanos(1);
        out.await(settle);
        if (err != null) {
            err.await(settle);
        }
        out.stop();
        if (err != null) {
            err.stop();
        }
        int code = exited ? p.exitValue() : -1;
        return new Result(argv, code, out.text(), err == null ? "" : err.text(), !exited,
                out.truncated() || (err != null && err.truncated()), Duration.ofNanos(System.nanoTime() - startNanos), killed);
    }

    /** Kills the processes whose environment carries {@code tag}: children the program left behind, wherever they were reparented. */
    private static int killTagged(String tag) {
        byte[] marker = (TAG_VAR + "=" + tag).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        int n = 0;
        try (java.nio.file.DirectoryStream<java.nio.file.Path> procs = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc"),
                e -> e.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (java.nio.file.Path dir : procs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == self) {
                    continue;
                }
                try {
                    if (contains(java.nio.file.Files.readAllBytes(dir.resolve("environ")), marker)) {
                        Optional<ProcessHandle> h = ProcessHandle.of(pid);
                        if (h.isPresent() && h.get().destroyForcibly()) {
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

    private static int killTree(Process p, Set<ProcessHandle> seen) {
        List<ProcessHandle> all = new ArrayList<>();
        p.descendants().forEach(all::add);
        for (ProcessHandle h : seen) {
            if (!all.contains(h)) {
                all.add(h);
            }
        }
        int n = 0;
        if (p.isAlive()) {
            p.destroyForcibly();
            n++;
        }
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
        return n;
    }

    /** Reads one stream to its end on a daemon thread: keeps up to the cap, discards the rest. */
    private static final class Drain implements Runnable {
        private final InputStream in;
        private final int cap;
        private final Consumer<String> lines;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private final Thread thread;
        private volatile boolean stopped;
        private boolean truncated;

        Drain(InputStream in, int cap, Consumer<String> lines, String name) {
            this.in = in;
            this.cap = cap;
            this.lines = lines;
            this.thread = new Thread(this, "nhc-drain " + name);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (lines != null) {
                        deliver(buf, n);
                    } else {
                        keep(buf, n);
                    }
                }
                if (lines != null && partial.size() > 0 && !stopped) {
                    lines.accept(partial.toString(StandardCharsets.UTF_8));
                }
            } catch (IOException ignored) {
                // The stream closes when the process is killed; what was read so far is kept.
            }
        }

        private synchronized void keep(byte[] buf, int n) {
            int room = cap - kept.size();
            if (room >= n) {
                kept.write(buf, 0, n);
            } else {
                if (room > 0) {
                    kept.write(buf, 0, room);
                }
                truncated = true;
            }
        }

        /** Line mode: the cap applies per line; an absurdly long line keeps its head. */
        private void deliver(byte[] buf, int n) {
            int start = 0;
            for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    append(buf, start, i - start);
                    if (!stopped) {
                        lines.accept(partial.toString(StandardCharsets.UTF_8));
                    }
                    partial.reset();
                    start = i + 1;
                }
            }
            append(buf, start, n - start);
        }

        private void append(byte[] buf, int off, int len) {
            int room = cap - partial.size();
            if (len <= room) {
                partial.write(buf, off, len);
            } else {
                if (room > 0) {
                    partial.write(buf, off, room);
                }
                synchronized (this) {
                    truncated = true;
                }
            }
        }

        boolean await(long nanos) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return !thread.isAlive();
        }

        /** After this, a reader still blocked (a grandchild nhc could not see holds the pipe) delivers nothing more. */
        void stop() {
            stopped = true;
        }

        synchronized String text() {
            return kept.toString(StandardCharsets.UTF_8);
        }

        synchronized boolean truncated() {
            return truncated;
        }
    }
}
