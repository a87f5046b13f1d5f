package dev.nhc.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every code block of README.md and docs/*.md, as a reader would use it, from this build:
 * {@code sh}, {@code bash} and {@code console} blocks are run command by command, each expected to
 * exit 0 unless its comment says {@code # exit N}, and a {@code console} block's output lines must
 * be in what the command printed (digits may differ); {@code yaml} blocks are checked with
 * {@code nhc check-config}, completed into a config when they are a part of one (a check, a
 * section). Other languages ({@code json}, {@code text}, {@code ini}) are shown output or
 * other programs' files and are not run; a block without a language is an error.
 *
 * <p>The commands run in a working copy of the repository in a temporary directory (the sources,
 * without build output, and this build's {@code cli/target/nhc}), from its root, with
 * {@code cli/target/nhc/bin} first on PATH as the README tells a reader to set it, and a temporary
 * HOME. Run by root, they run as the user nobody: nhc as root keeps its state in
 * {@code /var/lib/nhc}, and nothing on this machine is to change.
 *
 * <p>A block that cannot run here (it installs a package, needs Slurm or a dstack server) carries
 * {@code <!-- doc-test: skip — why, and where it is exercised instead -->} right before it; the
 * skipped blocks are reported as skipped with that reason. The README's two commands at the top
 * carry {@code <!-- doc-test: this build — ... -->}: this test runs inside the build they start,
 * so it checks their {@code mvn} command is exactly that build's ({@value #BUILD}, and
 * {@value #TEST}, which {@code .ci/run} runs) and runs what follows {@code &&}.
 */
class DocCommandsIT {
    static final String BUILD = "mvn -B -q package -DskipTests";
    static final String TEST = "mvn -B verify";
    private static final Path ROOT = Path.of(System.getProperty("nhc.root", "..")).toAbsolutePath().normalize();
    private static final int NOBODY = 65534;
    private static final long BLOCK_MINUTES = 10;

    @TempDir
    static Path tmp;
    private static Path work;
    private static Path home;
    private static boolean asNobody;

    /** A copy of the repository's sources with this build's app directory in it, and a HOME. */
    @BeforeAll
    static void workingCopy() throws Exception {
        asNobody = "root".equals(System.getProperty("user.name"));
        work = tmp.resolve("nhc");
        copySources(ROOT, work);
        Files.createDirectories(work.resolve("cli/target"));
        Files.createSymbolicLink(work.resolve("cli/target/nhc"), NhcProcess.APP);
        home = Files.createDirectories(tmp.resolve("home"));
        if (asNobody) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            giveToNobody(work);
            giveToNobody(home);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyBlockOfTheReadmeAndTheDocs() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : files) {
            for (DocBlocks.Block b : DocBlocks.read(f, ROOT.relativize(f).toString())) {
                tests.add(DynamicTest.dynamicTest(b.where() + " (" + (b.language().isEmpty() ? "no language" : b.language()) + ")",
                        () -> check(b)));
            }
        }
        assertTrue(tests.size() > 20, "found only " + tests.size() + " blocks in " + files);
        return tests.stream();
    }

    /** "Running it" names every command 'nhc help' lists, each on a line of its own. */
    @Test
    void theReadmeListsEveryCommandOfTheHelp() throws Exception {
        NhcProcess.Result help = NhcProcess.run(tmp, Map.of(), "help");
        assertEquals(0, help.exit(), help.err());
        List<String> commands = new ArrayList<>();
        boolean inList = false;
        for (String line : help.out().lines().toList()) {
            if (line.equals("Commands:")) {
                inList = true;
            } else if (inList && line.isBlank()) {
                break;
            } else if (inList && line.startsWith("  ") && !line.startsWith("   ")) {
                commands.add(line.strip().split("\\s+")[0]);
            }
        }
        assertTrue(commands.containsAll(List.of("run", "replay", "daemon", "list", "import-lbnl", "help")), commands.toString());
        String readme = Files.readString(ROOT.resolve("README.md"));
        String running = readme.substring(readme.indexOf("## Running it"), readme.indexOf("\n## ", readme.indexOf("## Running it") + 3));
        for (String c : commands) {
            assertTrue(running.lines().anyMatch(l -> l.startsWith("nhc " + c + " ") || l.equals("nhc " + c)),
                    "README.md's 'Running it' does not list 'nhc " + c + "'");
        }
    }

    private static void check(DocBlocks.Block b) throws Exception {
        if (b.language().isEmpty()) {
            fail(b.where() + ": a code block needs a language: sh or console for commands, yaml for configs, json or text for output");
        }
        String kind = b.directiveKind();
        if (kind != null && !kind.equals("skip") && !kind.equals("this build")) {
            fail(b.where() + ": unknown doc-test directive '" + b.directive() + "' (known: 'skip — why', 'this build — why')");
        }
        if ("skip".equals(kind)) {
            assertFalse(b.directiveReason().isBlank(), b.where() + ": a skipped block says why, and where it is exercised instead");
            System.out.println("doc-test: skipped " + b.where() + ": " + b.directiveReason());
            Assumptions.abort(b.directiveReason());
        }
        if ("this build".equals(kind) && !b.isShell()) {
            fail(b.where() + ": 'this build' is for the README's build and test commands");
        }
        if (b.isShell()) {
            runCommands(b, "this build".equals(kind));
        } else if (b.isYaml()) {
            checkConfig(b);
        }
    }

    private static void runCommands(DocBlocks.Block b, boolean thisBuild) throws Exception {
        List<DocBlocks.Command> commands = b.commands();
        assertFalse(commands.isEmpty(), b.where() + ": a shell block without a command");
        Path out = scratch();
        StringBuilder script = new StringBuilder("cd " + quote(work) + " || exit 90\n");
        script.append("__doc_expect() { if [ \"$1\" -ne \"$2\" ]; then echo \"$3 $1\" > ").append(quote(out.resolve("failed")))
                .append("; exit 97; fi; }\n");
        int ran = 0;
        for (int i = 0; i < commands.size(); i++) {
            DocBlocks.Command c = commands.get(i);
            String text = c.text();
            if (thisBuild && text.startsWith("mvn ")) {
                String[] parts = text.split(" && ", 2);
                String mvn = parts[0].replaceFirst("\\s+#.*$", "").strip();
                assertTrue(mvn.equals(BUILD) || mvn.equals(TEST), b.name() + ":" + c.line() + ": '" + mvn
                        + "' is not a build this test runs inside (" + BUILD + ", or " + TEST + ")");
                assertTrue(Files.exists(NhcProcess.APP.resolve("bin/nhc")), "this build made no " + NhcProcess.APP);
                if (mvn.equals(TEST)) {
                    assertTrue(Files.readAllLines(ROOT.resolve(".ci/run")).stream().anyMatch(l -> l.strip().equals(TEST)),
                            ".ci/run does not run the README's test command '" + TEST + "'");
                }
                if (parts.length == 1) {
                    continue;
                }
                text = parts[1];
            }
            script.append("{ ").append(text).append("\n} > ").append(quote(out.resolve(i + ".out"))).append(" 2>&1\n");
            script.append("__doc_expect $? ").append(c.exit()).append(' ').append(i).append('\n');
            ran++;
        }
        if (ran == 0) {
            return;
        }
        Path file = out.resolve("block.sh");
        Files.writeString(file, script);
        Result r = bash(file, out);
        Path failed = out.resolve("failed");
        if (Files.exists(failed)) {
            String[] f = Files.readString(failed).strip().split(" ");
            DocBlocks.Command c = commands.get(Integer.parseInt(f[0]));
            fail(b.name() + ":" + c.line() + ": `" + c.text() + "` exited " + f[1] + ", the doc says " + c.exit() + "; it printed:\n"
                    + tail(Files.readString(out.resolve(f[0] + ".out"))));
        }
        assertEquals(0, r.exit, b.where() + ": the block did not run to its end (exit " + r.exit + "):\n" + r.output);
        for (int i = 0; i < commands.size(); i++) {
            DocBlocks.Command c = commands.get(i);
            Path printed = out.resolve(i + ".out");
            if (!c.shownOutput().isEmpty()) {
                assertShown(b.name() + ":" + c.line(), c, Files.readString(printed));
            }
        }
    }

    /**
     * Every output line the doc shows is printed, in that order; digits may differ (times, counters),
     * and so may runs of spaces; "…" stands for any text (a line shortened for the page).
     */
    private static void assertShown(String where, DocBlocks.Command c, String printed) {
        List<String> lines = printed.lines().toList();
        int at = 0;
        for (String shown : c.shownOutput()) {
            Pattern p = Pattern.compile(shownPattern(shown));
            int found = -1;
            for (int i = at; i < lines.size(); i++) {
                if (p.matcher(lines.get(i)).matches()) {
                    found = i;
                    break;
                }
            }
            if (found < 0) {
                fail(where + ": `" + c.text() + "` did not print the line the doc shows:\n  " + shown + "\nit printed:\n" + tail(printed));
            }
            at = found + 1;
        }
    }

    static String shownPattern(String shown) {
        StringBuilder re = new StringBuilder();
        int i = 0;
        while (i < shown.length()) {
            char ch = shown.charAt(i);
            int j = i;
            if (Character.isDigit(ch)) {
                while (j < shown.length() && Character.isDigit(shown.charAt(j))) {
                    j++;
                }
                re.append("\\d+");
            } else if (ch == '…') {
                j++;
                re.append(".*");
            } else if (ch == ' ') {
                while (j < shown.length() && shown.charAt(j) == ' ') {
                    j++;
                }
                re.append(" +");
            } else {
                j++;
                re.append(Pattern.quote(String.valueOf(ch)));
            }
            i = j;
        }
        return re.toString();
    }

    /** A config or a part of one, completed into a config, passes {@code nhc check-config}. */
    private static void checkConfig(DocBlocks.Block b) throws Exception {
        Path out = scratch();
        Path config = out.resolve("config.yaml");
        Files.writeString(config, asConfig(b.lines()));
        Path file = out.resolve("block.sh");
        Files.writeString(file, "cd " + quote(work) + " && nhc check-config -c " + quote(config) + "\n");
        Result r = bash(file, out);
        assertEquals(0, r.exit, b.where() + ": the config (completed as " + config.getFileName() + "):\n"
                + Files.readString(config) + "\nnhc check-config says:\n" + r.output);
    }

    /**
     * The block as a whole config: as it is when it has {@code nhc:}; a list of checks goes under
     * {@code checks:}; sections get {@code nhc: 1} and, when they have none, one check.
     */
    static String asConfig(List<String> lines) {
        String text = String.join("\n", lines) + "\n";
        boolean version = lines.stream().anyMatch(l -> l.startsWith("nhc:"));
        boolean checks = lines.stream().anyMatch(l -> l.startsWith("checks:"));
        String first = lines.stream().filter(l -> !l.isBlank() && !l.strip().startsWith("#")).findFirst().orElse("");
        if (version) {
            return text;
        }
        if (first.startsWith("- ")) {
            return "nhc: 1\nchecks:\n" + text.replaceAll("(?m)^(?=.)", "  ");
        }
        return "nhc: 1\n" + text + (checks ? "" : "checks:\n  - { name: doc-example, use: load }\n");
    }

    private record Result(int exit, String output) {
    }

    private static Result bash(Path script, Path out) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (asNobody) {
            giveToNobody(out);
            cmd.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        cmd.addAll(List.of("bash", "--noprofile", "--norc", script.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(out.resolve("bash.out").toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("NHC_") || k.startsWith("XDG_") || k.startsWith("MAVEN_") || k.equals("SLURMD_NODENAME"));
        env.put("HOME", home.toString());
        // Java takes the home directory from the password file, not from HOME: the state goes here by XDG's variable.
        env.put("XDG_STATE_HOME", home.resolve(".local/state").toString());
        env.put("PATH", work.resolve("cli/target/nhc/bin") + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("LC_ALL", "C.UTF-8");
        Process p = pb.start();
        if (!p.waitFor(BLOCK_MINUTES, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail(script + " did not end within " + BLOCK_MINUTES + " minutes");
        }
        return new Result(p.exitValue(), Files.readString(out.resolve("bash.out"), StandardCharsets.UTF_8));
    }

    private static Path scratch() throws IOException {
        return Files.createTempDirectory(tmp, "block");
    }

    private static String tail(String s) {
        return s.length() <= 6000 ? s : "…" + s.substring(s.length() - 6000);
    }

    private static String quote(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }

    /** The repository's files, without build output and version control. */
    private static void copySources(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                if (!dir.equals(from) && (name.equals("target") || name.equals(".git"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile()) {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void giveToNobody(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (!Files.isSymbolicLink(p)) {
                    Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
                    Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
                }
            }
        }
    }
}
