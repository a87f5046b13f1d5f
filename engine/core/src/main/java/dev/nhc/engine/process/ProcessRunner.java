package dev.nhc.engine.process;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
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
 * (PATH and LANG set to safe values), {@link #minimalEnvironment} from one holding only the PATH
 * given (a site's script keeps the locale nhc runs with unset), {@link #outputCap} bytes kept per
 * stream (default 64 KiB), {@link #mergeStderr} interleaves stderr into stdout,
 * {@link #onStdoutLine} streams stdout line by line to a consumer instead of keeping it (for long
 * outputs such as journalctl), {@link #directory} the working directory (default: nhc's own).
 *
 * <p>A program that cannot be started throws {@link StartFailure} naming it; so does one whose
 * output reader thread cannot be started (at the pid or thread limit), after it and everything it
 * forked were killed: nothing may run that nhc neither reads nor times. When the calling
 * thread is interrupted (the runner abandoned the check), the process tree is killed before the
 * InterruptedException propagates.
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
    public static final String TAG_VAR = "NHC_PROCESS_TAG";
    /** The system directories only: what a site's script gets as PATH, and where a bare script name is looked up. */
    public static final String SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
    private static final String CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:" + SYSTEM_PATH;

    private final List<String> argv;
    private final Map<String, String> env = new LinkedHashMap<>();
    private boolean cleanEnv;
    private String cleanPath = CLEAN_PATH;
    private boolean cleanLang = true;
    private Duration timeout = Duration.ofSeconds(10);
    private int outputCap = DEFAULT_OUTPUT_CAP;
    private boolean mergeStderr;
    private Consumer<String> stdoutLines;
    private Path directory;
    private ThreadFactory readerThreads = ProcessRunner::readerThread;
    /** argv[0] as the program will see it (a descriptor path, not followed by a digit), and the name to show in its place. */
    private java.util.regex.Pattern execPath;
    private String shownName;

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
        this.cleanPath = CLEAN_PATH;
        this.cleanLang = true;
        return this;
    }

    /** An empty environment but for PATH set to exactly {@code path} (and what {@link #env} adds): no LANG either. */
    public ProcessRunner minimalEnvironment(String path) {
        this.cleanEnv = true;
        this.cleanPath = Objects.requireNonNull(path);
        this.cleanLang = false;
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

    public ProcessRunner directory(Path dir) {
        this.directory = dir;
        return this;
    }

    /**
     * The program is executed as {@code execPath} (its checked descriptor, /proc/PID/fd/N) but is
     * {@code name} to whoever reads what it said: programs print their argv[0] in messages
     * ({@code id: 'x': no such user}), so that path is replaced by the name in its output and in
     * nhc's own messages about it.
     */
    ProcessRunner shownAs(String execPath, String name) {
        this.execPath = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(execPath) + "(?![0-9])");
        this.shownName = java.util.regex.Matcher.quoteReplacement(Objects.requireNonNull(name));
        return this;
    }

    private String shown(String text) {
        return execPath == null || text.isEmpty() ? text : execPath.matcher(text).replaceAll(shownName);
    }

    /** Where the output readers' threads come from (tests make it fail as a pid limit does). */
    ProcessRunner readerThreads(ThreadFactory f) {
        this.readerThreads = Objects.requireNonNull(f);
        return this;
    }

    private static Thread readerThread(Runnable r) {
        Thread t = new Thread(r);
        t.setDaemon(true);
        return t;
    }

    /**
     * What happened. {@code exitCode} is -1 when the program was killed on timeout.
     * {@code truncated}: more output came than the cap kept. {@code stdoutBytes}: how much the
     * program printed on stdout in all, kept or not. {@code killed}: how many processes (the
     * program and its children) nhc had to kill; {@code killedChildren} the same without the
     * program itself: what it left running or still had below it at the timeout.
     */
    public record Result(List<String> argv, int exitCode, String stdout, String stderr, boolean timedOut,
                         boolean truncated, Duration elapsed, int killed, int killedChildren, long stdoutBytes) {

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

    /** The program could not be started at all; {@link #reason()} says why without naming it again. */
    public static final class StartFailure extends IOException {
        private final String reason;

        StartFailure(String program, String reason, Throwable cause) {
            super("cannot run " + program + ": " + reason, cause);
            this.reason = reason;
        }

        /** "No such file or directory", "Permission denied", ... */
        public String reason() {
            return reason;
        }
    }

    /**
     * Runs the program to its end or its timeout. Throws {@link StartFailure} only when it cannot be
     * started (not found, not executable), InterruptedException when the calling thread is
     * interrupted, after killing what it started.
     */
    public Result run() throws StartFailure, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectErrorStream(mergeStderr);
        if (directory != null) {
            pb.directory(directory.toFile());
        }
        if (cleanEnv) {
            pb.environment().clear();
            pb.environment().put("PATH", cleanPath);
            if (cleanLang) {
                pb.environment().put("LANG", "C");
            }
        }
        pb.environment().putAll(env);
        String tag = java.util.UUID.randomUUID().toString();
        pb.environment().put(TAG_VAR, tag);

        long startNanos = System.nanoTime();
        long deadline = startNanos + Math.max(0, timeout.toNanos());
        String program = shown(argv.get(0));
        Consumer<String> lines = stdoutLines == null || execPath == null ? stdoutLines : l -> stdoutLines.accept(shown(l));
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new StartFailure(program, shown(reason(e)), e);
        }
        OutputDrain out = null;
        OutputDrain err;
        try {
            out = new OutputDrain(p.getInputStream(), outputCap, lines, "stdout of " + program, readerThreads);
            err = mergeStderr ? null : new OutputDrain(p.getErrorStream(), outputCap, null, "stderr of " + program, readerThreads);
        } catch (OutOfMemoryError | RuntimeException e) {
            // At the pid or thread limit (a fork bomb, say) the program runs but nothing could read or
            // time it: kill it and everything it started, or it goes on eating what is left.
            ProcessTreeKill.killTree(p, Set.of());
            ProcessTreeKill.killTagged(tag);
            if (out != null) {
                out.stop();
            }
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new StartFailure(program, "cannot start reader: " + why, e);
        }

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
            ProcessTreeKill.killTree(p, seen);
            ProcessTreeKill.killTagged(tag);
            out.stop();
            if (err != null) {
                err.stop();
            }
            throw e;
        }

        int[] killed = {0, 0};
        if (!exited) {
            killed = ProcessTreeKill.killTree(p, seen);
        } else {
            long grace = Math.min(ORPHAN_GRACE.toNanos(), Math.max(0, deadline - System.nanoTime()));
            if (!out.await(grace) || (err != null && !err.await(grace))) {
                killed = ProcessTreeKill.killTree(p, seen);
            }
        }
        int children = killed[1] + ProcessTreeKill.killTagged(tag);
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
        return new Result(argv, code, shown(out.text()), err == null ? "" : shown(err.text()), !exited,
                out.truncated() || (err != null && err.truncated()), Duration.ofNanos(System.nanoTime() - startNanos),
                killed[0] + children, children, out.total());
    }


    private static String reason(IOException e) {
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        // JDK 17: "Cannot run program "x": error=2, No such file or directory" -> the part after the errno;
        // JDK 25: "Cannot run program "x": Exec failed, error: 2 (No such file or directory) " -> the part in brackets
        int i = m.indexOf("error=");
        if (i >= 0) {
            int comma = m.indexOf(", ", i);
            return comma >= 0 ? m.substring(comma + 2) : m.substring(i);
        }
        java.util.regex.Matcher errno = java.util.regex.Pattern.compile("error: \\d+ \\(([^)]*)\\)").matcher(m);
        if (errno.find()) {
            return errno.group(1);
        }
        return m;
    }
}
