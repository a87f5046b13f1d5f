package dev.nhc.engine.config;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads YAML text into {@link ConfigNode}s with positions. Only composes the node graph (never
 * constructs arbitrary objects), rejects duplicate keys, and bounds size, nesting and what aliases
 * expand to, so that a hostile or broken file is an error with its place rather than an exhausted
 * heap or stack: an alias used inside its own anchor ({@code a: &a [*a]}) is refused where it is
 * anchored, and a document whose aliases multiply (billion laughs) is refused once it expands to
 * more than {@link #MAX_VALUES} values.
 *
 * <p>The parser and composer are used directly rather than through {@code Yaml}: a {@code Yaml}
 * builds a constructor and a representer that nhc never uses, and their class initialisation asks
 * the JDK for a platform logger, which starts java.util.logging (~10 ms of every one-shot run).
 */
public final class YamlReader {
    /** Configs are a few KB; anything near this is a mistake (a log pasted in, a binary). */
    public static final int MAX_BYTES = 1024 * 1024;
    /** Values after aliases are expanded: a large config has a few thousand. */
    public static final int MAX_VALUES = 100_000;
    /** Nesting after aliases are expanded (an alias inside an alias inside ...). */
    static final int MAX_DEPTH = 100;
    /** Aliases of maps and lists: generous for configs that share a {@code with:} among many checks; MAX_VALUES bounds what they expand to. */
    static final int MAX_ALIASES = 1000;

    private YamlReader() {
    }

    public static ConfigNode read(String fileName, String text) throws ConfigException {
        return read(fileName, text, MAX_BYTES);
    }

    /** As {@link #read(String, String)}, for files that may be larger than a config (state files). */
    public static ConfigNode read(String fileName, String text, int maxBytes) throws ConfigException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setNestingDepthLimit(50);
        options.setCodePointLimit(maxBytes);
        options.setAllowRecursiveKeys(false);
        Node root;
        try {
            root = new Composer(new ParserImpl(new StreamReader(new StringReader(text)), options), new Resolver(), options)
                    .getSingleNode();
        } catch (MarkedYAMLException e) {
            throw YamlSyntaxError.explain(fileName, text, e);
        } catch (YAMLException e) {
            throw new ConfigException(Location.of(fileName), "YAML error: " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
        if (root == null) {
            throw new ConfigException(new Location(fileName, 1, 1), "the file is empty; a config needs at least 'nhc: 1' and 'checks:'");
        }
        Problems problems = new Problems();
        ConfigNode node = new Converter(fileName, problems).convert(root, 0);
        problems.throwIfAny();
        return node;
    }

    static Location at(String file, Mark m) {
        return m == null ? Location.of(file) : new Location(file, m.getLine() + 1, m.getColumn() + 1);
    }

    /**
     * Turns the composed node graph into ConfigNodes. The graph shares a node wherever an alias
     * points to it, and loops where an alias sits inside its own anchor: the nodes being converted
     * are tracked to refuse a loop, and the values made are counted to refuse a graph that expands
     * beyond any config.
     */
    private static final class Converter {
        private final String file;
        private final Problems problems;
        private final Set<Node> open = Collections.newSetFromMap(new IdentityHashMap<>());
        private int values;

        Converter(String file, Problems problems) {
            this.file = file;
            this.problems = problems;
        }

        ConfigNode convert(Node node, int depth) throws ConfigException {
            Location loc = at(file, node.getStartMark());
            if (++values > MAX_VALUES) {
                throw new ConfigException(loc, "the document expands to more than " + MAX_VALUES
                        + " values through its aliases (*name); a config is far smaller (an alias bomb?)");
            }
            if (depth > MAX_DEPTH) {
                throw new ConfigException(loc, "values are nested more than " + MAX_DEPTH + " levels deep (through aliases?)");
            }
            if (!open.add(node)) {
                String anchor = node.getAnchor() == null ? "" : node.getAnchor();
                throw new ConfigException(loc, "alias *" + anchor + " is used inside its own anchor &" + anchor
                        + " (a value that contains itself)");
            }
            try {
                if (node instanceof MappingNode mapping) {
                    return map(mapping, loc, depth);
                }
                if (node instanceof SequenceNode seq) {
                    List<ConfigNode> items = new ArrayList<>();
                    for (Node n : seq.getValue()) {
                        items.add(convert(n, depth + 1));
                    }
                    return ConfigNode.list(loc, items);
                }
                ScalarNode s = (ScalarNode) node;
                return ConfigNode.scalar(loc, s.getValue(), resolve(s));
            } finally {
                open.remove(node);
            }
        }

        private ConfigNode map(MappingNode mapping, Location loc, int depth) throws ConfigException {
            Map<String, ConfigNode> entries = new LinkedHashMap<>();
            Map<String, Location> keys = new LinkedHashMap<>();
            for (NodeTuple t : mapping.getValue()) {
                Node k = t.getKeyNode();
                Location kl = at(file, k.getStartMark());
                if (!(k instanceof ScalarNode ks)) {
                    problems.add(kl, "a key must be a plain word, not a structure");
                    continue;
                }
                String key = ks.getValue();
                if (entries.containsKey(key)) {
                    problems.add(kl, "duplicate key '" + key + "' (first at line " + keys.get(key).line() + ")");
                    continue;
                }
                keys.put(key, kl);
                entries.put(key, convert(t.getValueNode(), depth + 1));
            }
            return ConfigNode.map(loc, entries, keys);
        }
    }

    /**
     * The value of a plain scalar. YAML 1.1 also reads {@code 12:30} (base 60), {@code 0b101} and
     * {@code .inf} as numbers, which Java does not parse: such a scalar stays text, so a string
     * parameter takes it as written and a numeric one reports "must be a number, not the text ..."
     * with its place (rather than the whole file being refused wherever it appears).
     */
    private static Object resolve(ScalarNode s) {
        String v = s.getValue();
        Tag tag = s.getTag();
        try {
            if (Tag.NULL.equals(tag)) {
                return null;
            }
            if (Tag.BOOL.equals(tag)) {
                String l = v.toLowerCase(java.util.Locale.ROOT);
                return l.equals("true") || l.equals("yes") || l.equals("on") || l.equals("y");
            }
            if (Tag.INT.equals(tag)) {
                String clean = v.replace("_", "");
                if (clean.matches("[-+]?0[0-7]+")) {
                    // YAML 1.1 reads 010 as octal 8; an admin writing a count never means that.
                    return Long.parseLong(clean, 10);
                }
                return Long.decode(clean);
            }
            if (Tag.FLOAT.equals(tag)) {
                return Double.parseDouble(v.replace("_", ""));
            }
        } catch (NumberFormatException e) {
            return v;
        }
        return v;
    }
}
