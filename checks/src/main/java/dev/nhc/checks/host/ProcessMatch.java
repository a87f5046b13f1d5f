package dev.nhc.checks.host;

import dev.nhc.checks.Globs;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How the {@code process} probe recognises a process: by name ({@code comm}, or argv[0]'s base name),
 * or by a glob over the command line as ps(1) shows it — the first word ({@code argv0}) or all of it
 * ({@code cmdline}). ps shows {@code /proc/PID/cmdline} with its NULs as blanks, characters it cannot
 * print as '?', and "[comm]" for a process without one (a kernel thread); LBNL NHC then splits that
 * on blanks and joins the words again with single blanks, which is the text the globs see.
 */
record ProcessMatch(String name, List<Pattern> argv0, List<Pattern> cmdline, String label) {
    /** The kernel cuts comm to 15 characters (TASK_COMM_LEN 16 with the NUL). */
    private static final int COMM_MAX = 15;

    static ProcessMatch of(String name, List<Pattern> argv0, List<Pattern> cmdline) {
        if (name != null) {
            return new ProcessMatch(name, null, null, name);
        }
        if (argv0 != null) {
            return new ProcessMatch(null, argv0, null, "argv0 " + Globs.show(argv0));
        }
        return new ProcessMatch(null, null, cmdline, "command line " + Globs.show(cmdline));
    }

    boolean matches(String comm, byte[] cmdlineBytes) {
        if (name != null) {
            return comm.equals(name) || (name.length() > COMM_MAX && comm.equals(name.substring(0, COMM_MAX)))
                    || name.equals(baseName(argv0Raw(cmdlineBytes)));
        }
        String shown = asPsShowsIt(comm, cmdlineBytes);
        if (argv0 != null) {
            int blank = shown.indexOf(' ');
            String first = blank < 0 ? shown : shown.substring(0, blank);
            return argv0.stream().anyMatch(g -> g.matcher(first).matches());
        }
        return cmdline.stream().anyMatch(g -> g.matcher(shown).matches());
    }

    /** The command line as LBNL NHC sees it in ps's args column: words of printable text joined by single blanks. */
    static String asPsShowsIt(String comm, byte[] cmdline) {
        int end = cmdline.length;
        while (end > 0 && cmdline[end - 1] == 0) {
            end--;
        }
        if (end == 0) {
            return "[" + comm + "]";
        }
        String text = new String(cmdline, 0, end, StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            b.append(c == 0 ? ' ' : Character.isISOControl(c) ? '?' : c);
        }
        return b.toString().trim().replaceAll(" {2,}", " ");
    }

    private static String argv0Raw(byte[] b) {
        int end = 0;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }

    private static String baseName(String path) {
        int slash = path.lastIndexOf('/');
        return slash >= 0 ? path.substring(slash + 1) : path;
    }
}
