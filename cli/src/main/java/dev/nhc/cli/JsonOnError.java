package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.ConfigProblem;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The promise of {@code --json}: exactly one JSON object on stdout, also when the command ends
 * without a verdict (an invalid config or capture, a wrong option, a run already in progress, an
 * internal error). While a {@code --json} command runs, stdout is watched and stderr kept (a few
 * hundred lines); if the command wrote nothing on stdout, this writes one object saying why:
 * {@code {"error": ..., "exit_code": 2, "problems": [{"file", "line", "column", "message"}]}}. The
 * text on stderr is unchanged. Watching every command here, rather than each error path in each
 * command, is what makes "exactly one" hold for error paths added later too.
 */
final class JsonOnError {
    private static final int KEPT_BYTES = 64 * 1024;
    /** A capture problem as the replay prints it: "FILE: line 7: expected ...". */
    private static final Pattern FILE_LINE = Pattern.compile("(.+?): line (\\d+)(?:, column (\\d+))?: (.*)");
    private static volatile List<ConfigProblem> configProblems = List.of();

    private final PrintStream out;
    private final PrintStream err;
    private final Counting watched;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

    private JsonOnError(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
        this.watched = new Counting(out);
    }

    /** Starts watching when the arguments ask for {@code --json}; null otherwise (nothing is wrapped). */
    static JsonOnError watch(String[] args) {
        boolean json = false;
        for (String a : args) {
            if (a.equals("--")) {
                break;
            }
            json |= a.equals("--json");
        }
        if (!json) {
            return null;
        }
        configProblems = List.of();
        JsonOnError w = new JsonOnError(System.out, System.err);
        System.setOut(new PrintStream(w.watched, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(w.err, w.kept), true, StandardCharsets.UTF_8));
        return w;
    }

    /** The problems of an invalid config, kept with their places for the JSON object (the text goes to stderr as always). */
    static void configProblems(List<ConfigProblem> problems) {
        configProblems = List.copyOf(problems);
    }

    /** Restores stdout and stderr; writes the error object when the command wrote nothing on stdout. Returns the exit code. */
    int finish(int exitCode) {
        System.out.flush();
        System.err.flush();
        System.setOut(out);
        System.setErr(err);
        if (watched.count == 0) {
            out.println(render(exitCode, kept.toString(StandardCharsets.UTF_8), configProblems));
            out.flush();
        }
        return exitCode;
    }

    /** The error object for a command that ended with this exit code, having said {@code stderr}. */
    static String render(int exitCode, String stderr, List<ConfigProblem> config) {
        List<Map<String, Object>> problems = new ArrayList<>();
        for (ConfigProblem p : config) {
            problems.add(problem(p.location().file(), p.location().line(), p.location().column(), p.message()));
        }
        String error = null;
        for (String line : stderr.lines().toList()) {
            if (line.isBlank() || line.startsWith("\t") || line.startsWith("Try '")) {
                continue;
            }
            if (line.startsWith("nhc: ")) {
                error = line.substring(5);
                continue;
            }
            if (!config.isEmpty()) {
                continue;
            }
            Matcher m = FILE_LINE.matcher(line);
            if (m.matches()) {
                problems.add(problem(m.group(1), Integer.parseInt(m.group(2)), m.group(3) == null ? 0 : Integer.parseInt(m.group(3)), m.group(4)));
            } else {
                problems.add(problem(null, 0, 0, line));
            }
        }
        if (error == null) {
            error = problems.isEmpty() ? "nhc printed no verdict (exit code " + exitCode + ")" : String.valueOf(problems.get(0).get("message"));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", error);
        m.put("exit_code", exitCode);
        m.put("problems", problems);
        try {
            return JSON.std.asString(m);
        } catch (IOException e) {
            return "{\"error\": \"cannot write JSON\", \"exit_code\": " + exitCode + ", \"problems\": []}";
        }
    }

    private static Map<String, Object> problem(String file, int line, int column, String message) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("file", file);
        p.put("line", line > 0 ? line : null);
        p.put("column", column > 0 ? column : null);
        p.put("message", message);
        return p;
    }

    /** Passes everything through and counts it. */
    private static final class Counting extends OutputStream {
        private final OutputStream to;
        private long count;

        Counting(OutputStream to) {
            this.to = to;
        }

        @Override
        public void write(int b) throws IOException {
            count++;
            to.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count += len;
            to.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            to.flush();
        }
    }

    /** Passes everything through and keeps the first {@link #KEPT_BYTES}. */
    private static final class Tee extends OutputStream {
        private final OutputStream to;
        private final ByteArrayOutputStream kept;

        Tee(OutputStream to, ByteArrayOutputStream kept) {
            this.to = to;
            this.kept = kept;
        }

        @Override
        public void write(int b) throws IOException {
            if (kept.size() < KEPT_BYTES) {
                kept.write(b);
            }
            to.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            kept.write(b, off, Math.max(0, Math.min(len, KEPT_BYTES - kept.size())));
            to.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            to.flush();
        }
    }
}
