package dev.nhc.scripts;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.OpenedFile;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.PriorObservations;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code script.js}: a rule written in JavaScript over what the other checks observed, e.g. "a GPU
 * that is both hot and drawing little power is throttling". It runs in a GraalJS sandbox (see
 * {@link dev.nhc.scripts.js.JsSandbox}, found by {@link GraalJs}) and sees:
 * <ul>
 *   <li>{@code observations}: check name → entity → fields, from the other checks of this run
 *       (the spec says {@code runsLast}: the runner runs script.js checks after all others and
 *       offers their observations as {@link PriorObservations});</li>
 *   <li>{@code vars}: the check's {@code with: { vars }} map; {@code node}: the host name;</li>
 *   <li>{@code readFile(path)}, {@code listDir(path)}: only below {@code with: { allow_read }}.</li>
 * </ul>
 * Its completion value is its findings: a list of {@code {entity, severity, message, remedy}},
 * or an object holding that list under {@code findings}. They are observed per entity as
 * {@link ScriptFindings} (the script's severity, message and remedy), and the default rules take
 * the script at its word. Nothing here touches org.graalvm: the polyglot engine loads on the
 * first {@code probe()} call of a config that uses script.js.
 */
public final class ScriptJsProbe implements Probe {
    public static final String NAME = "script.js";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** A rule is a few kilobytes; a larger file is a mistake, not something to hold in memory. */
    static final int MAX_FILE_BYTES = 1024 * 1024;

    static final ParamSpec<String> FILE = ParamSpec.text("file", "the .js file to run, an absolute path (or give 'source')")
            .check(f -> f.startsWith("/") ? null : "must be an absolute path, not '" + f + "'").names(ParamSpec.PathUse.LOAD);
    static final ParamSpec<String> SOURCE = ParamSpec.text("source", "the JavaScript itself, for short rules (or give 'file')");
    static final ParamSpec<List<String>> ALLOW_READ = ParamSpec.texts("allow_read", "paths the script may read (and list) below, read-only")
            .defaultValue(List.of())
            .check(ScriptJsProbe::notAbsolute);
    static final ParamSpec<Map<String, Object>> VARS = ParamSpec.map("vars", "values handed to the script as 'vars'");
    static final ParamSpec<Duration> TIMEOUT = ParamSpec.duration("timeout", "stop the script after this long")
            .defaultValue(DEFAULT_TIMEOUT)
            .check(d -> d.isNegative() || d.isZero() ? "must be longer than 0" : null);

    private static final ProbeSpec SPEC = ScriptFindings.declare(ProbeSpec.builder(NAME,
                    "a sandboxed JavaScript rule over the other checks' observations (GraalJS, loaded only when used)")
            .tags(Tags.SCRIPT)
            .entities(Entity.Kind.OTHER, "the entities the script names in its findings (the node when it names none)")
            .param(FILE)
            .param(SOURCE)
            .param(ALLOW_READ)
            .param(VARS)
            .param(TIMEOUT)
            .paramsCheck(p -> p.given(FILE.name()) == p.given(SOURCE.name()) ? "give exactly one of 'file' or 'source'" : null)
            .runsLast())
            .build();

    private final BooleanSupplier runningAsRoot;

    public ScriptJsProbe() {
        this(Ownership::runningAsRoot);
    }

    ScriptJsProbe(BooleanSupplier runningAsRoot) {
        this.runningAsRoot = runningAsRoot;
    }

    private static String notAbsolute(List<String> paths) {
        for (String a : paths) {
            if (!a.startsWith("/")) {
                return "entry '" + a + "' must be an absolute path";
            }
        }
        return null;
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String file = FILE.get(ctx.params()); // exactly one of file and source: checked at load (paramsCheck)
        String inline = SOURCE.get(ctx.params());
        String name = file != null ? file : ctx.checkName() + ".js";
        String source = inline;
        if (file != null) {
            // Checked and read through one descriptor (as root: root's, writable by no one else,
            // reached through root's directories only), and bounded: a FIFO or /dev/zero is refused.
            try (OpenedFile f = OpenedFile.open(Path.of(file), runningAsRoot.getAsBoolean())) {
                source = new String(f.readAll(MAX_FILE_BYTES), StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                return unknown("script.js file " + file + " not found");
            } catch (UntrustedPathException e) {
                return unknown("refusing to run " + file + " as root: " + e.getMessage());
            } catch (OpenedFile.NotRegularFileException | OpenedFile.TooLargeException e) {
                return unknown("script.js file " + file + " " + e.getMessage()); // "is a FIFO, not a regular file"
            } catch (IOException e) {
                return unknown("script.js file " + file + " cannot be read: " + IoReason.of(e));
            }
        }
        List<Path> allowed = new ArrayList<>();
        for (String a : ALLOW_READ.get(ctx.params())) { // absolute: checked at load (notAbsolute)
            Path p = ctx.sys(a);
            allowed.add(Files.exists(p) ? p.toRealPath() : p.normalize());
        }
        Duration timeout = TIMEOUT.get(ctx.params());
        Duration left = ctx.remaining().minusMillis(100);
        if (timeout.compareTo(left) > 0) {
            timeout = left.isNegative() ? Duration.ofMillis(100) : left;
        }
        String observations = JSON.std.asString(observationTree(ctx));
        Map<String, Object> vars = VARS.get(ctx.params());
        String varsJson = JSON.std.asString(vars == null ? Map.of() : vars);
        String resultJson;
        try {
            ReadAccess access = new ReadAccess(allowed, ctx::sys);
            resultJson = GraalJs.runner().run(source, name, observations, varsJson, ctx.hostname(), access::read, access::list, timeout);
        } catch (ScriptFailure e) {
            return unknown(e.getMessage());
        }
        try {
            return new ProbeResult(reported(JSON.std.anyFrom(resultJson)), null);
        } catch (IllegalArgumentException e) {
            return unknown(name + " returned findings nhc cannot read: " + e.getMessage());
        }
    }

    private static List<Observation> reported(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof Map<?, ?> m) {
            Object list = m.containsKey("findings") ? m.get("findings") : m.get("nhc_findings");
            if (list == null) {
                throw new IllegalArgumentException("an object without 'findings'");
            }
            return ScriptFindings.read(list);
        }
        return ScriptFindings.read(value);
    }

    /** check name → entity → fields: the shape a rule author wants ({@code observations.gpus.gpu0.temperature}). */
    private static Map<String, Object> observationTree(ProbeContext ctx) {
        Map<String, Object> tree = new LinkedHashMap<>();
        ctx.service(PriorObservations.class).ifPresent(obs -> obs.byCheck().forEach((check, list) -> {
            if (check.equals(ctx.checkName())) {
                return;
            }
            Map<String, Object> entities = new LinkedHashMap<>();
            for (Observation o : list) {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = (Map<String, Object>) entities.computeIfAbsent(o.entity().label(), k -> new LinkedHashMap<>());
                fields.putAll(o.fields());
            }
            tree.put(check, entities);
        }));
        return tree;
    }

    /** The script could not give its findings: the check cannot decide. */
    private static ProbeResult unknown(String why) {
        return ProbeResult.of(Observation.unreadable(Entity.NODE, why));
    }
}
