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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads YAML text into {@link ConfigNode}s with positions. Only composes the node graph (never
 * constructs arbitrary objects), rejects duplicate keys, and bounds aliases and size so that a
 * hostile or broken file cannot exhaust memory.
 *
 * <p>The parser and composer are used directly rather than through {@code Yaml}: a {@code Yaml}
 * builds a constructor and a representer that nhc never uses, and their class initialisation asks
 * the JDK for a platform logger, which starts java.util.logging (~10 ms of every one-shot run).
 */
public final class YamlReader {
    /** Configs are a few KB; anything near this is a mistake (a log pasted in, a binary). */
    public static final int MAX_BYTES = 1024 * 1024;

    private YamlReader() {
    }

    public static ConfigNode read(String fileName, String text) throws ConfigException {
        return read(fileName, text, MAX_BYTES);
    }

    /** As {@link #read(String, String)}, for files that may be larger than a config (state files). */
    public static ConfigNode read(String fileName, String text, int maxBytes) throws ConfigException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(50);
        options.setNestingDepthLimit(50);
        options.setCodePointLimit(maxBytes);
        options.setAllowRecursiveKeys(false);
        Node root;
        try {
            root = new Composer(new ParserImpl(new StreamReader(new StringReader(text)), options), new Resolver(), options)
                    .getSingleNode();
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String what = e.getProblem() != null ? e.getProblem() : e.getMessage();
            if (e.getContext() != null) {
                what = e.getContext() + ": " + what;
            }
            throw new ConfigException(at(fileName, m), "YAML syntax error: " + what.replace('\n', ' ').trim());
        } catch (YAMLException e) {
            throw new ConfigException(Location.of(fileName), "YAML error: " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
        if (root == null) {
            throw new ConfigException(new Location(fileName, 1, 1), "the file is empty; a config needs at least 'nhc: 1' and 'checks:'");
        }
        Problems problems = new Problems();
        ConfigNode node = convert(fileName, root, problems);
        problems.throwIfAny();
        return node;
    }

    private static Location at(String file, Mark m) {
        return m == null ? Location.of(file) : new Location(file, m.getLine() + 1, m.getColumn() + 1);
    }

    private static ConfigNode convert(String file, Node node, Problems problems) {
        Location loc = at(file, node.getStartMark());
        if (node instanceof MappingNode mapping) {
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
                entries.put(key, convert(file, t.getValueNode(), problems));
            }
            return ConfigNode.map(loc, entries, keys);
        }
        if (node instanceof SequenceNode seq) {
            List<ConfigNode> items = new ArrayList<>();
            for (Node n : seq.getValue()) {
                items.add(convert(file, n, problems));
            }
            return ConfigNode.list(loc, items);
        }
        ScalarNode s = (ScalarNode) node;
        return ConfigNode.scalar(loc, s.getValue(), resolve(s, loc, problems));
    }

    private static Object resolve(ScalarNode s, Location loc, Problems problems) {
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
            problems.add(loc, "'" + v + "' is not a number nhc can use (too large?)");
            return v;
        }
        return v;
    }
}
