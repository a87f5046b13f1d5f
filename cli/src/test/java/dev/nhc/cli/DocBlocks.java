package dev.nhc.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown file, with what the doc test needs to know about each: its
 * language, the line of its opening fence, the {@code <!-- doc-test: ... -->} comment right before
 * it, and, for shell blocks, the commands in it with the exit code each is said to end with.
 */
final class DocBlocks {
    private static final Pattern FENCE = Pattern.compile("^( *)```\\s*([A-Za-z0-9_+-]*)\\s*$");
    private static final Pattern DIRECTIVE = Pattern.compile("^\\s*<!--\\s*doc-test:\\s*(.*?)\\s*-->\\s*$");
    /** "# exit 1" (or "# exit 1: why") in a command's trailing comment. */
    private static final Pattern EXIT = Pattern.compile("(?:^|\\s)#.*?\\bexit (\\d+)\\b");

    /** A command as written (continuation lines joined with their backslashes), where it starts, and the exit code it should end with. */
    record Command(String text, int line, int exit, List<String> shownOutput) {
    }

    /** One fenced block: the lines between its fences, without the fence's indentation. */
    record Block(Path file, String name, int line, String language, String directive, List<String> lines) {
        String where() {
            return name + ":" + line;
        }

        boolean isShell() {
            return language.equals("sh") || language.equals("bash") || language.equals("console");
        }

        boolean isYaml() {
            return language.equals("yaml") || language.equals("yml");
        }

        /** The directive's word ("skip", "this build"), or null without a directive. */
        String directiveKind() {
            if (directive == null) {
                return null;
            }
            return directive.replaceFirst("\\s*[—:-].*$", "").trim();
        }

        /** What the directive says after its word: the reason. */
        String directiveReason() {
            Matcher m = Pattern.compile("^[^—:-]*[—:-]\\s*(.*)$").matcher(directive == null ? "" : directive);
            return m.matches() ? m.group(1).trim() : "";
        }

        /**
         * The commands of a shell block. In {@code console} blocks commands start with "$ " and the lines
         * up to the next command are the output shown for it; in {@code sh} and {@code bash} blocks every
         * line that is not blank or a comment is a command, and a trailing backslash continues it.
         */
        List<Command> commands() {
            List<Command> out = new ArrayList<>();
            boolean console = language.equals("console");
            StringBuilder text = null;
            int start = 0;
            List<String> shown = null;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                int lineNo = line + 1 + i;
                if (text != null) {
                    text.append('\n').append(l);
                    if (!l.endsWith("\\")) {
                        shown = new ArrayList<>();
                        out.add(new Command(text.toString(), start, exitOf(l), shown));
                        text = null;
                    }
                    continue;
                }
                String cmd;
                if (console) {
                    if (!l.startsWith("$ ")) {
                        if (shown != null && !l.isBlank()) {
                            shown.add(l);
                        }
                        continue;
                    }
                    cmd = l.substring(2);
                } else {
                    if (l.isBlank() || l.strip().startsWith("#")) {
                        continue;
                    }
                    cmd = l;
                }
                if (cmd.endsWith("\\")) {
                    text = new StringBuilder(cmd);
                    start = lineNo;
                    continue;
                }
                shown = new ArrayList<>();
                out.add(new Command(cmd, lineNo, exitOf(cmd), shown));
            }
            if (text != null) {
                out.add(new Command(text.toString(), start, 0, new ArrayList<>()));
            }
            return out;
        }
    }

    private DocBlocks() {
    }

    static int exitOf(String line) {
        Matcher m = EXIT.matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** Every fenced block of {@code file}, named {@code name} in messages (its path from the repository root). */
    static List<Block> read(Path file, String name) throws IOException {
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Matcher open = FENCE.matcher(all.get(i));
            if (!open.matches()) {
                continue;
            }
            int indent = open.group(1).length();
            String directive = null;
            for (int j = i - 1; j >= 0; j--) {
                if (all.get(j).isBlank()) {
                    continue;
                }
                Matcher d = DIRECTIVE.matcher(all.get(j));
                directive = d.matches() ? d.group(1) : null;
                break;
            }
            List<String> lines = new ArrayList<>();
            int close = i + 1;
            while (close < all.size() && !all.get(close).strip().equals("```")) {
                String l = all.get(close);
                lines.add(l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l.stripLeading());
                close++;
            }
            if (close >= all.size()) {
                throw new IllegalStateException(name + ":" + (i + 1) + ": the code block is never closed");
            }
            blocks.add(new Block(file, name, i + 1, open.group(2), directive, lines));
            i = close;
        }
        return blocks;
    }
}
