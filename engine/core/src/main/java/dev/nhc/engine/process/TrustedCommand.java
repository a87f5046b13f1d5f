package dev.nhc.engine.process;

import dev.nhc.engine.files.OpenedFile;
import dev.nhc.engine.files.TrustedPath;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one set of rules for a program that a config asks nhc to run ({@code command} and
 * {@code script} checks alike):
 * <ul>
 *   <li>the program is an absolute path, or a bare name found in {@link ProcessRunner#SYSTEM_PATH}
 *       (never the caller's PATH, never /usr/local);</li>
 *   <li>it is opened, checked on the open descriptor and executed through it
 *       ({@code /proc/PID/fd/N}), so the file checked is the file run. Its argv[0], and a script's
 *       {@code $0}, is therefore that path: a program that finds itself through argv[0] (a
 *       multi-call binary, a virtualenv's python) is run through a #! script instead, whose
 *       interpreter the kernel starts by its own path. Java cannot set argv[0] apart from the
 *       file it executes, so what the program prints is shown with that path replaced by the
 *       program as the config names it ({@code id: 'rcops': no such user}, not
 *       {@code /proc/22708/fd/11: …});</li>
 *   <li>it runs with a clean environment (PATH set to the system directories), stdin from
 *       /dev/null and / as working directory ({@link #runner()});</li>
 *   <li>as root, the program, every directory and link on its path, the interpreter its
 *       {@code #!} line names, and every file an argument names must be root's and writable by no
 *       one else, and an argument naming a file that does not exist must be in a directory only
 *       root can write. The arguments are all checked because nhc cannot know which of them the
 *       program reads as code ({@code [env, bash, /x/s.sh]}, {@code [awk, -f, /x/prog]},
 *       {@code --file=/x/prog}): a program root runs is only given files only root can change.
 *       That includes the paths written inside an argument: code for an interpreter
 *       ({@code [sh, -c, "exec /x/check.sh"]}, {@code [python3, -c, "exec(open('/x/c.py').read())"]},
 *       perl/ruby/node {@code -e}, awk's program) is split into words at blanks, quotes and
 *       shell or code punctuation, and every word with a slash is a path ({@link #pathsIn}); a
 *       word {@code ~user/…} (another user's home) is refused outright. This holds for every
 *       program, not only the interpreters nhc knows: a path built at run time (from a variable,
 *       by concatenation) is what nhc cannot see, and the clean environment, with no HOME, and
 *       / as working directory leave little to build one from.</li>
 * </ul>
 * The descriptor stays open until {@link #close()}, after the program has ended: an interpreter
 * opens its script through that path once it has started.
 */
public final class TrustedCommand implements AutoCloseable {
    /** Linux follows at most this many #! interpreters in a row (BINPRM_MAX_RECURSION). */
    private static final int MAX_INTERPRETERS = 4;
    private static final int SHEBANG_MAX = 256;

    /** Null only when not running as root and the program may be run but not read. */
    private final OpenedFile program;
    private final List<String> argv;
    /** The program as the caller named it, shown where the program prints its argv[0]. */
    private final String name;

    private TrustedCommand(OpenedFile program, List<String> argv, String name) {
        this.program = program;
        this.argv = argv;
        this.name = name;
    }

    /** The program cannot be found or is not something that can be run; the message says why without naming it. */
    public static final class NotFoundException extends IOException {
        private static final long serialVersionUID = 1L;

        NotFoundException(String why) {
            super(why);
        }
    }

    /** What the arguments of a command are, for the root-only rule. */
    public enum Arguments {
        /** Written by an admin and possibly code (a config's command): every path they name is checked. */
        CHECKED,
        /**
         * nhc's own data for a tool it drives (scontrol's {@code Reason=…}, which quotes findings):
         * only the program and its interpreters are checked, or a path in a message would stop a drain.
         */
        DATA
    }

    /**
     * Finds, checks and opens {@code command}'s program, its arguments checked too. Throws
     * {@link NotFoundException}, {@link UntrustedPathException} (root-only rule: the message names
     * the file and why), or an IOException when what is on the path cannot be examined.
     */
    public static TrustedCommand prepare(List<String> command, boolean rootOnly) throws IOException {
        return prepare(command, rootOnly, Arguments.CHECKED);
    }

    /** As {@link #prepare(List, boolean)}, with the arguments checked or taken as data. */
    public static TrustedCommand prepare(List<String> command, boolean rootOnly, Arguments arguments) throws IOException {
        Path exe = locate(command);
        OpenedFile opened;
        try {
            opened = OpenedFile.open(exe, rootOnly);
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException | OpenedFile.NotRegularFileException e) {
            throw new NotFoundException("not found or not executable");
        } catch (java.nio.file.AccessDeniedException e) {
            if (rootOnly || !Files.isExecutable(exe)) {
                throw e;
            }
            // Not root, a program one may run but not read (mode 711): run it by its path, as any shell would.
            List<String> argv = new ArrayList<>(command);
            argv.set(0, exe.toString());
            return new TrustedCommand(null, List.copyOf(argv), command.get(0));
        }
        try {
            if (!opened.stat().executable()) {
                throw new NotFoundException("not found or not executable");
            }
            if (rootOnly) {
                checkRest(opened.path(), opened.head(SHEBANG_MAX), arguments == Arguments.CHECKED ? command : command.subList(0, 1));
            }
            List<String> argv = new ArrayList<>(command);
            argv.set(0, opened.execPath());
            return new TrustedCommand(opened, List.copyOf(argv), command.get(0));
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /**
     * The root-only rule of {@link #prepare} without opening anything for running: for a config
     * that names the command (checked when it is loaded) and for a program found by a search.
     * Throws as {@link #prepare} does.
     */
    public static void check(List<String> command) throws IOException {
        TrustedPath.Resolved r;
        try {
            r = TrustedPath.resolve(locate(command), true);
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            throw new NotFoundException("not found or not executable");
        }
        if (!r.stat().isRegular() || !r.stat().executable()) {
            throw new NotFoundException("not found or not executable");
        }
        // The path cannot change under us now (checked above), so reading it again is reading the same file.
        checkRest(r.real(), head(r.real()), command);
    }

    private static Path locate(List<String> command) throws NotFoundException {
        if (command.isEmpty() || command.get(0).isBlank()) {
            throw new NotFoundException("the command is empty");
        }
        return locate(command.get(0));
    }

    /** The #! interpreters of {@code program} (whose first bytes are {@code head}) and every path the arguments name. */
    private static void checkRest(Path program, byte[] head, List<String> command) throws IOException {
        List<Path> paths = new ArrayList<>();
        checkInterpreter(program, head, 1, paths);
        for (String arg : command.subList(1, command.size())) {
            paths.addAll(pathsIn(arg));
        }
        TrustedPath.checkAll(paths);
    }

    /** The argv to start: the program as /proc/PID/fd/N, then the arguments as given. */
    public List<String> argv() {
        return argv;
    }

    /**
     * A runner for {@link #argv()} with the clean environment, stdin from /dev/null and / as
     * working directory; its output shows the program by {@link #name()}, not by its descriptor.
     */
    public ProcessRunner runner() {
        return ProcessRunner.of(argv).minimalEnvironment(ProcessRunner.SYSTEM_PATH).directory(Path.of("/"))
                .shownAs(argv.get(0), name);
    }

    /** The program as the command names it (what an admin wrote: {@code id}, {@code /usr/bin/scontrol}). */
    public String name() {
        return name;
    }

    @Override
    public void close() throws IOException {
        if (program != null) {
            program.close();
        }
    }

    private static Path locate(String command) throws NotFoundException {
        if (command.contains("/")) {
            Path p = path(command);
            if (p == null || !p.isAbsolute()) {
                throw new NotFoundException("not found: give the program as an absolute path or a bare name");
            }
            return p;
        }
        for (String dir : ProcessRunner.SYSTEM_PATH.split(":")) {
            Path p = path(dir + "/" + command);
            if (p != null && Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        throw new NotFoundException("not found or not executable on " + ProcessRunner.SYSTEM_PATH);
    }

    /**
     * The interpreter a #! line names is run as root with the script: it gets the same rules
     * (its path is checked now, and may itself start with #!), and its argument goes with the
     * others into {@code paths}.
     */
    private static void checkInterpreter(Path file, byte[] head, int depth, List<Path> paths) throws IOException {
        if (head.length < 2 || head[0] != '#' || head[1] != '!') {
            return;
        }
        int end = 2;
        while (end < head.length && head[end] != '\n') {
            end++;
        }
        String line = new String(head, 2, end - 2, StandardCharsets.UTF_8).strip();
        int space = indexOfBlank(line);
        String interpreter = space < 0 ? line : line.substring(0, space);
        String arg = space < 0 ? "" : line.substring(space).strip();
        Path p = interpreter.isEmpty() ? null : path(interpreter);
        if (p == null) {
            return; // the kernel refuses to run it
        }
        if (depth > MAX_INTERPRETERS) {
            throw new UntrustedPathException(file + " starts a chain of more than " + MAX_INTERPRETERS + " #! interpreters");
        }
        TrustedPath.Resolved r;
        try {
            r = TrustedPath.resolve(Path.of("/").resolve(p), true);
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return; // the kernel will refuse to start it: nothing runs
        }
        if (r.stat().isRegular()) {
            // The path cannot change under us now (checked above), so reading it again is reading the same file.
            checkInterpreter(r.real(), head(r.real()), depth + 1, paths);
        }
        paths.addAll(pathsIn(arg));
    }

    private static byte[] head(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate(SHEBANG_MAX);
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // up to the first SHEBANG_MAX bytes
            }
            return Arrays.copyOf(buf.array(), buf.position());
        }
    }

    private static int indexOfBlank(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == ' ' || s.charAt(i) == '\t') {
                return i;
            }
        }
        return -1;
    }

    /**
     * The paths an argument may name, read the way programs take them: the argument itself
     * (relative ones against /, the working directory), a bare word also in the system
     * directories (where env, xargs or an interpreter would look it up), the value of an
     * option ({@code --file=/x}, {@code -f/x}), and every word in it that holds a slash (code
     * for an interpreter: {@code exec /x/check.sh}, {@code open('/x/c.py')}, {@code PATH=/x:$PATH}).
     * Throws when a word names another user's home ({@code ~user/…}), which nhc does not look up.
     */
    static List<Path> pathsIn(String arg) throws UntrustedPathException {
        List<Path> out = new ArrayList<>();
        if (arg.isEmpty()) {
            return out;
        }
        Path root = Path.of("/");
        if (arg.startsWith("-")) {
            int eq = arg.indexOf('=');
            String value = eq >= 0 ? arg.substring(eq + 1) : !arg.startsWith("--") && arg.length() > 2 ? arg.substring(2) : "";
            Path p = value.isEmpty() ? null : path(value);
            if (p != null) {
                out.add(root.resolve(p));
            }
        } else {
            Path p = path(arg);
            if (p != null) {
                out.add(root.resolve(p));
                if (!arg.contains("/")) {
                    for (String dir : ProcessRunner.SYSTEM_PATH.split(":")) {
                        out.add(Path.of(dir).resolve(p));
                    }
                }
            }
        }
        for (String word : CodeWords.withSlash(arg)) {
            // an option glued to its value inside code (-f/x/prog) names the value
            String w = word.startsWith("-") ? word.substring(word.indexOf('/')) : word;
            Path p = path(w.startsWith("~") ? home(w, arg) : w);
            if (p != null && !out.contains(root.resolve(p))) {
                out.add(root.resolve(p));
            }
        }
        return out;
    }

    /** {@code ~/x} is root's home (what a shell or Python gives root with no HOME); {@code ~user/x} is refused. */
    private static String home(String word, String arg) throws UntrustedPathException {
        if (word.startsWith("~/")) {
            return "/root" + word.substring(1);
        }
        throw new UntrustedPathException("the argument '" + abbreviate(arg) + "' names " + word.substring(0, word.indexOf('/'))
                + "'s home directory, which nhc does not look up: write the file's absolute path (root only runs files only root can change)");
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static Path path(String s) {
        try {
            return Path.of(s);
        } catch (InvalidPathException e) {
            return null; // a NUL: no system call takes it as a path either
        }
    }
}
