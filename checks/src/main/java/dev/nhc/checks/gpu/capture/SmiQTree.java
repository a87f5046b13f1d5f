package dev.nhc.checks.gpu.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi -q} as the tree its indentation draws: each line a "key : value" or a section
 * title, with what is indented under it. Indentation must be nvidia-smi's (steps of four spaces);
 * a line that breaks it is left out and reported with its line, never attached to a guess.
 */
final class SmiQTree {
    private static final Pattern KEY_VALUE = Pattern.compile("^(.*?)\\s+:(?:\\s(.*))?$");

    /** Where a line that cannot be placed is reported. */
    interface Problems {
        void problem(int line, String what);
    }

    /** One line: a "key : value" or a section title (value null), with what is indented under it. */
    static final class Node {
        final String key;
        final String value;
        final int line;
        final List<Node> children = new ArrayList<>();

        Node(String key, String value, int line) {
            this.key = key;
            this.value = value;
            this.line = line;
        }

        /** The child of this name; nvidia-smi's capitals are not relied on ("Retired pages" typed by hand is the same section). */
        Node child(String name) {
            for (Node c : children) {
                if (c.key.equalsIgnoreCase(name)) {
                    return c;
                }
            }
            return null;
        }

        Node path(String... names) {
            Node n = this;
            for (String name : names) {
                n = n == null ? null : n.child(name);
            }
            return n;
        }

        Node firstChild(String... names) {
            for (String name : names) {
                Node c = child(name);
                if (c != null) {
                    return c;
                }
            }
            return null;
        }

        int lastLine() {
            return children.isEmpty() ? line : children.get(children.size() - 1).lastLine();
        }

        /** The last section (or value) under this node, in the order the capture shows them. */
        Node last() {
            return children.isEmpty() ? null : children.get(children.size() - 1);
        }
    }

    private SmiQTree() {
    }

    /**
     * The tree of {@code lines[from..]}. {@code shift} is added to every line's indentation first
     * (negative: taken away), so that a part pasted from inside a GPU block, its first line
     * indented, nests from its first line.
     */
    static Node build(String[] lines, int from, int shift, Problems problems) {
        Node root = new Node("", null, 0);
        List<Node> stack = new ArrayList<>();
        stack.add(root);
        for (int i = from; i < lines.length; i++) {
            String raw = lines[i];
            int lineNo = i + 1;
            if (raw.isBlank()) {
                continue;
            }
            if (raw.indexOf('\t') >= 0) {
                problems.problem(lineNo, "expected spaces, found a tab (nvidia-smi -q indents with spaces)");
                continue;
            }
            int spaces = indent(raw);
            int indent = spaces + shift;
            if (indent < 0) {
                problems.problem(lineNo, "indented " + spaces + " spaces, less than the first line of the capture");
                continue;
            }
            if (indent % 4 != 0) {
                problems.problem(lineNo, "expected indentation in steps of 4 spaces, found " + spaces);
                continue;
            }
            int level = indent / 4;
            if (level > stack.size() - 1) {
                Node above = stack.get(stack.size() - 1);
                problems.problem(lineNo, "indented " + spaces + " spaces, deeper than "
                        + (above == root ? "the start of the capture allows" : "'" + above.key + "' (line " + above.line + ") allows"));
                continue;
            }
            String content = raw.substring(spaces).stripTrailing();
            Matcher kv = KEY_VALUE.matcher(content);
            Node node = kv.matches() ? new Node(kv.group(1).strip(), kv.group(2) == null ? "" : kv.group(2).strip(), lineNo)
                    : new Node(content.strip(), null, lineNo);
            while (stack.size() > level + 1) {
                stack.remove(stack.size() - 1);
            }
            stack.get(level).children.add(node);
            stack.add(node);
        }
        return root;
    }

    /** Leading spaces of the line. */
    static int indent(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        return i;
    }
}
