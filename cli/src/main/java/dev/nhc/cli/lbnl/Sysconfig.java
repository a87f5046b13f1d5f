package dev.nhc.cli.lbnl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LBNL NHC's sysconfig file ({@code /etc/sysconfig/nhc}, {@code /etc/default/nhc}), which its
 * {@code nhc} sources before it reads the config: sites keep per-node values there (VUB's
 * {@code check_hw_cpuinfo $NHC_SOCKETS …}). Only plain assignments of literal values are read, since
 * anything else bash would run could set any variable. A check line's variables are then expanded
 * ({@link ShellExpansion}) as bash would on a node with this file.
 */
public final class Sysconfig {
    private static final Pattern ASSIGNMENT = Pattern.compile("(?:export\\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)");

    private final String file;
    private final Map<String, String> values;

    private Sysconfig(String file, Map<String, String> values) {
        this.file = file;
        this.values = values;
    }

    /** Reads the file, or throws with FILE:LINE when a line is not a comment or a plain assignment of a literal value. */
    public static Sysconfig parse(String file, String content) {
        Map<String, String> values = new LinkedHashMap<>();
        String[] lines = content.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = ASSIGNMENT.matcher(line);
            ShellWords.Parsed value = m.matches() ? ShellWords.parse(m.group(2).isEmpty() ? "''" : m.group(2)) : null;
            if (value == null || !value.isStatic() || value.words().size() != 1 || m.group(2).startsWith("(")) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": not a plain assignment of a literal value (NAME=value);"
                        + " import-lbnl cannot know what bash would set by running it");
            }
            values.put(m.group(1), value.words().get(0));
        }
        return new Sysconfig(file, Collections.unmodifiableMap(values));
    }

    public String file() {
        return file;
    }

    public Map<String, String> values() {
        return values;
    }

    /**
     * The check with this file's variables expanded. Variables the config itself assigns (in
     * {@code assigned}) are left for bash, and so are the ones LBNL NHC sets while it runs; any other
     * variable the file does not set is unset, as LBNL NHC run from slurmd sees it, which matters to
     * {@code ${NAME:-default}} and {@code ${NAME+word}}.
     */
    ShellExpansion.Expanded expand(String check, Set<String> assigned, java.util.function.Predicate<String> runtime) {
        Map<String, String> known = new LinkedHashMap<>(values);
        known.keySet().removeAll(assigned);
        return ShellExpansion.expand(check, known, name -> !assigned.contains(name) && !runtime.test(name));
    }

    /** The check LBNL NHC runs for the line on a node with this file, as the import reads it: "" when it runs nothing. */
    public String resolve(String check) {
        ShellExpansion.Expanded x = expand(check, Set.of(), LbnlImporter::runtime);
        return x.used().isEmpty() ? check : ShellExpansion.conditional(x.check());
    }
}
