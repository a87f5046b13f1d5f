package dev.nhc.engine.plan;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.engine.config.Location;
import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.config.ParamConverter;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.config.Suggest;
import dev.nhc.engine.config.TrustedValues;
import dev.nhc.engine.config.YamlReader;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.OpenedFile;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.units.Quantity;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads and validates a config file and plans it: every check with its probe, its parameters
 * converted and checked, and its rules compiled (the {@link Plan}). Collects every problem (each
 * with file:line:column) before failing, so that one {@code nhc check-config} shows them all.
 * Nothing here touches the system beyond reading the file and, as root, looking at the files its
 * values name to run, load or write ({@link TrustedValues}): an invalid config must lead to no
 * action at all.
 */
public final class ConfigLoader {
    private static final List<String> TOP_LEVEL = List.of("nhc", "settings", "hostgroups", "checks");
    /**
     * At most this many checks: 10,000 ran the daemon's 64 MiB heap out of memory. Real configs
     * have tens (LBNL NHC's largest examples a few hundred); the daemon's heap holds this many
     * with room to spare (bench/daemon-memory.sh measures the usual load).
     */
    public static final int MAX_CHECKS = 1000;
    /** The keys a check accepts: the names of {@link #checkKeys()}, so {@code nhc list} and the loader never disagree. */
    private static final List<String> CHECK_KEYS = checkKeys().stream().map(ParamSpec::name).toList();
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final ProbeRegistry registry;
    private final RulesCompiler rules;
    private final Map<String, ConfigSection> sections;
    private boolean enforceOwnership = true;

    public ConfigLoader(ProbeRegistry registry, RulesCompiler rules, List<ConfigSection> sections) {
        this.registry = registry;
        this.rules = rules;
        Map<String, ConfigSection> m = new LinkedHashMap<>();
        sections.forEach(s -> m.put(s.key(), s));
        this.sections = m;
    }

    /** Every config section (an integration's {@code slurm:}, {@code dstack:}) found on the class path and in the site jars. */
    public static List<ConfigSection> sectionsOnClassPath() {
        List<ConfigSection> found = new ArrayList<>();
        java.util.ServiceLoader.load(ConfigSection.class, SiteJars.loader()).forEach(found::add);
        return found;
    }

    public ProbeRegistry registry() {
        return registry;
    }

    public RulesCompiler rules() {
        return rules;
    }

    public List<ConfigSection> sections() {
        return List.copyOf(sections.values());
    }

    /** Tests that create configs as another user turn the root-only ownership rule off. */
    public ConfigLoader enforceOwnership(boolean enforce) {
        this.enforceOwnership = enforce;
        return this;
    }

    /**
     * Reads, validates and plans {@code file}. Only a regular file is read (a FIFO would wait for a
     * writer, a link to /dev/zero would never end), at most {@link YamlReader#MAX_BYTES}, from the
     * descriptor that was checked: as root, every directory and link up to it and the file itself
     * must be root's and writable by no one else.
     */
    public Plan load(Path file) throws ConfigException {
        String name = file.toString();
        Location whole = Location.of(name);
        String text;
        try (OpenedFile f = OpenedFile.open(file, enforceOwnership && Ownership.runningAsRoot())) {
            byte[] bytes = f.readAll(YamlReader.MAX_BYTES);
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            throw new ConfigException(whole, "no such file (give another with -c FILE)");
        } catch (OpenedFile.NotRegularFileException e) {
            throw new ConfigException(whole, e.getMessage().startsWith("is a directory") ? "is a directory, not a config file" : e.getMessage());
        } catch (OpenedFile.TooLargeException e) {
            throw new ConfigException(whole, "is " + e.size() + " bytes; a config may be at most " + YamlReader.MAX_BYTES
                    + " bytes (is this the right file?)");
        } catch (UntrustedPathException e) {
            throw new ConfigException(whole, e.getMessage() + "; running as root, nhc only reads configs that only root can change");
        } catch (CharacterCodingException e) {
            throw new ConfigException(whole, "is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException(whole, "cannot read: " + IoReason.of(e));
        }
        return parse(name, text, file);
    }

    public Plan parse(String fileName, String text, Path file) throws ConfigException {
        ConfigNode root = YamlReader.read(fileName, text);
        Problems problems = new Problems();
        if (!root.isMap()) {
            problems.add(root.location(), "a config must be a map with 'nhc: 1' and 'checks:', not " + root.describeKind());
            problems.throwIfAny();
        }
        List<String> topKeys = new ArrayList<>(TOP_LEVEL);
        topKeys.addAll(sections.keySet());
        for (String key : root.entries().keySet()) {
            if (!topKeys.contains(key)) {
                problems.add(root.keyLocation(key), "unknown top-level key '" + key + "'" + Suggest.didYouMean(key, topKeys)
                        + " (known: " + String.join(", ", topKeys) + ")");
            }
        }
        ConfigNode version = root.get("nhc");
        if (version == null) {
            problems.add(new Location(fileName, 1, 1), "missing 'nhc: 1' (the config schema version)");
        } else if (!Long.valueOf(1).equals(version.value())) {
            problems.add(version.location(), "unsupported schema version '" + version.text() + "'; this nhc reads 'nhc: 1'");
        }

        boolean rootOnly = enforceOwnership && Ownership.runningAsRoot();
        Params settingsParams = ParamConverter.convert("settings", root.get("settings"), root.location(), Settings.SPEC, problems);
        if (rootOnly) {
            TrustedValues.check(Settings.SPEC, settingsParams, root.get("settings"), "settings", problems);
        }
        Settings settings = new Settings(settingsParams);

        Map<String, List<String>> hostgroups = hostgroups(root.get("hostgroups"), problems);

        Map<String, Params> sectionValues = new LinkedHashMap<>();
        java.util.Set<String> written = new java.util.LinkedHashSet<>();
        for (ConfigSection section : sections.values()) {
            Params values = ParamConverter.convert(section.key(), root.get(section.key()), root.location(), section.params(), problems);
            section.validate(values, root.get(section.key()), problems);
            if (rootOnly) {
                TrustedValues.check(section.params(), values, root.get(section.key()), section.key(), problems);
            }
            sectionValues.put(section.key(), values);
            if (root.get(section.key()) != null) {
                written.add(section.key());
            }
        }

        List<CheckConfig> checks = new ArrayList<>();
        List<PlannedCheck> planned = new ArrayList<>();
        ConfigNode checksNode = root.get("checks");
        if (checksNode == null) {
            problems.add(root.location(), "no 'checks:' list; a config without checks would pass every node");
        } else if (checksNode.isNull() || (checksNode.isList() && checksNode.items().isEmpty())) {
            problems.add(checksNode.isNull() ? root.keyLocation("checks") : checksNode.location(),
                    "'checks:' is empty; a config without checks would pass every node");
        } else if (!checksNode.isList()) {
            problems.add(checksNode.location(), "'checks' must be a list of checks (each starting with '- name:'), not " + checksNode.describeKind());
        } else if (checksNode.items().size() > MAX_CHECKS) {
            problems.add(checksNode.items().get(MAX_CHECKS).location(), "more than " + MAX_CHECKS + " checks ("
                    + checksNode.items().size() + "); nhc daemon keeps every check's schedule and latest result in a heap"
                    + " sized for at most " + MAX_CHECKS + " (a check can watch many things at once: several mounts, units or patterns)");
        } else {
            Map<String, Location> seen = new LinkedHashMap<>();
            for (ConfigNode c : checksNode.items()) {
                // Names are unique even among checks that have other problems, so all are reported at once.
                ConfigNode nameNode = c.isMap() ? c.get("name") : null;
                if (nameNode != null && nameNode.isScalar() && !nameNode.isNull()) {
                    Location first = seen.putIfAbsent(nameNode.text(), c.location());
                    if (first != null) {
                        problems.add(nameNode.location(), "duplicate check name '" + nameNode.text() + "' (first at line " + first.line() + ")");
                        continue;
                    }
                }
                PlannedCheck check = check(c, hostgroups, settings, rootOnly, problems);
                if (check != null) {
                    checks.add(check.check());
                    planned.add(check);
                }
            }
        }
        problems.throwIfAny();
        return new Plan(new Config(file, settings, hostgroups, checks, sectionValues, written), planned);
    }

    private Map<String, List<String>> hostgroups(ConfigNode node, Problems problems) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isMap()) {
            problems.add(node.location(), "'hostgroups' must be a map of name: pattern(s), not " + node.describeKind());
            return out;
        }
        node.entries().forEach((name, value) -> {
            List<String> patterns = patterns(value, "hostgroup '" + name + "'", problems);
            if (value.isList() && value.items().isEmpty()) {
                problems.add(value.location(), "hostgroup '" + name + "' has no host patterns; a check 'on: " + name + "' would run nowhere");
            }
            out.put(name, patterns);
        });
        return out;
    }

    private static List<String> patterns(ConfigNode value, String what, Problems problems) {
        List<String> patterns = new ArrayList<>();
        List<ConfigNode> items = value.isList() ? value.items() : List.of(value);
        for (ConfigNode item : items) {
            if (!item.isScalar() || item.isNull()) {
                problems.add(item.location(), what + ": expected a host pattern such as gpu-[001-128] or login*, not " + item.describeKind());
                continue;
            }
            // Several patterns in one string are allowed as in Slurm's lists: "gpu-[01-08], !gpu-03".
            for (String p : item.text().split("\\s*,\\s*(?![^\\[]*\\])")) {
                String error = HostSelector.validate(p.trim());
                if (error != null) {
                    problems.add(item.location(), what + ": " + error);
                } else {
                    patterns.add(p.trim());
                }
            }
        }
        return patterns;
    }

    private PlannedCheck check(ConfigNode c, Map<String, List<String>> hostgroups, Settings settings, boolean rootOnly, Problems problems) {
        if (!c.isMap()) {
            problems.add(c.location(), "each check must be a map with at least 'name:' and 'use:', not " + c.describeKind());
            return null;
        }
        int before = problems.size();
        for (String key : c.entries().keySet()) {
            if (!CHECK_KEYS.contains(key)) {
                problems.add(c.keyLocation(key), "unknown key '" + key + "' in a check" + Suggest.didYouMean(key, CHECK_KEYS)
                        + " (known: " + String.join(", ", CHECK_KEYS) + ")");
            }
        }
        String name = scalarText(c, "name", problems);
        String label = name == null ? "check at line " + c.location().line() : "check '" + name + "'";
        if (name == null) {
            problems.add(c.location(), "a check needs 'name:' (a short unique name such as root-fs)");
        } else if (!NAME.matcher(name).matches()) {
            problems.add(c.get("name").location(), "check name '" + name + "' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        String use = scalarText(c, "use", problems);
        Probe probe = null;
        if (use == null) {
            problems.add(c.location(), label + " needs 'use:' (the probe, e.g. disk.usage; 'nhc list' shows them all)");
        } else {
            probe = registry.find(use).orElse(null);
            if (probe == null && registry.names().contains(use)) {
                problems.add(c.get("use").location(), label + ": probe '" + use + "' is installed but could not be loaded (nhc's log says why)");
            } else if (probe == null) {
                List<String> leftOut = SiteJars.refused();
                problems.add(c.get("use").location(), label + ": unknown probe '" + use + "'" + Suggest.didYouMean(use, registry.names())
                        + " ('nhc list' shows every probe)" + (leftOut.isEmpty() ? "" : "; site jars left out: " + String.join("; ", leftOut)));
            }
        }
        if (c.get("description") != null && !c.get("description").isScalar()) {
            problems.add(c.get("description").location(), label + ": 'description' must be text");
        }
        HostSelector on = HostSelector.all();
        if (c.get("on") != null && !c.get("on").isNull()) {
            try {
                on = HostSelector.parse(patterns(c.get("on"), label + " on", problems), hostgroups);
            } catch (IllegalArgumentException e) {
                problems.add(c.get("on").location(), label + " on: " + e.getMessage());
            }
        }
        String where = label + (use != null ? " (" + use + ")" : "");
        int beforeWith = problems.size();
        Params with = probe == null ? Params.empty()
                : ParamConverter.convert(where + " with:", c.get("with"), c.location(), probe.spec().params(), problems);
        if (probe != null && problems.size() == beforeWith) {
            ConfigNode withNode = c.get("with");
            for (String wrong : probe.spec().paramsProblems(with)) {
                problems.add(withNode != null && !withNode.isNull() ? withNode.location() : c.location(), where + " with: " + wrong);
            }
        }
        Remedy remedy = enumValue(c, "remedy", label, Remedy::parse, problems);
        SlurmState slurmState = enumValue(c, "slurm_state", label, SlurmState::parse, problems);
        OnUnknown onUnknown = enumValue(c, "on_unknown", label, OnUnknown::parse, problems);
        Duration timeout = duration(c, "timeout", label, problems);
        Duration every = duration(c, "every", label, problems);
        int forRuns = 1;
        ConfigNode forNode = c.get("for");
        if (forNode != null) {
            if (forNode.value() instanceof Long l && l >= 1 && l <= 1000) {
                forRuns = l.intValue();
            } else {
                problems.add(forNode.location(), label + ": 'for' must be a whole number of consecutive runs between 1 and 1000, not " + forNode.describeKind());
            }
        }
        String message = scalarText(c, "message", problems);
        ConfigNode enabled = c.get("enabled");
        if (enabled != null && !(enabled.value() instanceof Boolean)) {
            problems.add(enabled.location(), label + ": 'enabled' must be true or false");
        }
        if (problems.size() > before || name == null || probe == null) {
            return null;
        }
        if (enabled != null && Boolean.FALSE.equals(enabled.value())) {
            return null;
        }
        if (rootOnly) {
            // a check that is not enabled runs nothing: only what will run is held to the trust rule
            TrustedValues.check(probe.spec().params(), with, c.get("with"), where + " with:", problems);
            if (problems.size() > before) {
                return null;
            }
        }
        CheckConfig check = new CheckConfig(name, use, c.location(), on, with, c.get("warn"), c.get("fail"), message, remedy,
                slurmState, forRuns, onUnknown, timeout, every, c);
        CompiledRules compiled = rules.compile(check, probe.spec(), problems);
        if (compiled == null || problems.size() > before) {
            return null;
        }
        return new PlannedCheck(check, probe, compiled, check.timeoutOr(settings.checkTimeout()), every);
    }

    private static String scalarText(ConfigNode c, String key, Problems problems) {
        ConfigNode n = c.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isScalar()) {
            problems.add(n.location(), "'" + key + "' must be a single value, not " + n.describeKind());
            return null;
        }
        return n.text();
    }

    private static <T> T enumValue(ConfigNode c, String key, String label, java.util.function.Function<String, T> parse, Problems problems) {
        String text = scalarText(c, key, problems);
        if (text == null) {
            return null;
        }
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            problems.add(c.get(key).location(), label + ": " + e.getMessage());
            return null;
        }
    }

    private static Duration duration(ConfigNode c, String key, String label, Problems problems) {
        String text = scalarText(c, key, problems);
        if (text == null) {
            return null;
        }
        try {
            Duration d = Quantity.parseDuration(text);
            if (d.isZero()) {
                throw new IllegalArgumentException("must be longer than 0");
            }
            return d;
        } catch (IllegalArgumentException e) {
            problems.add(c.get(key).location(), label + ": '" + key + "': " + e.getMessage());
            return null;
        }
    }

    /** The ParamSpec list of check-level keys, for {@code nhc list} and documentation. */
    public static List<ParamSpec<?>> checkKeys() {
        return List.of(
                ParamSpec.text("name", "unique name of the check, used in reports and Slurm reasons").required(),
                ParamSpec.text("use", "the probe to run (nhc list)").required(),
                ParamSpec.text("description", "what the check is for, in words (a note for whoever reads the config; nhc does not use it)"),
                ParamSpec.texts("on", "host patterns or hostgroups this check applies to"),
                ParamSpec.map("with", "the probe's parameters"),
                ParamSpec.any("warn", "conditions for WARN (replace the probe's default warn rules)"),
                ParamSpec.any("fail", "conditions for FAIL (replace the probe's default fail rules)"),
                ParamSpec.text("message", "message template: {field} is the observed value, {with.name} a parameter, {field|one|many} the word for a number"),
                ParamSpec.choice("remedy", "what to do about a finding", "none", "restart-app", "reset-gpu", "reboot", "hardware"),
                ParamSpec.choice("slurm_state", "the Slurm state a FAIL asks for", "drain", "fail"),
                ParamSpec.integer("for", "a finding counts only after this many consecutive runs").defaultValue(1L),
                ParamSpec.choice("on_unknown", "overrides settings.on_unknown", "ignore", "warn", "fail"),
                ParamSpec.duration("timeout", "time limit of this check (default settings.check_timeout)"),
                ParamSpec.duration("every", "run only when this much time has passed since the last run"),
                ParamSpec.flag("enabled", "false keeps the check in the file but does not run it").defaultValue(true));
    }

}
