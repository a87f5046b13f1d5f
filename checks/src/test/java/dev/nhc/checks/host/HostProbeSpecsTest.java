package dev.nhc.checks.host;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.model.Entity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code nhc list} prints and the config is validated against: registered, documented, self-consistent. */
class HostProbeSpecsTest {
    /** Each probe with the kind of entity it reports on. */
    private static final Map<String, Entity.Kind> KINDS = Map.of(
            "cpu", Entity.Kind.NODE, "disk.mount", Entity.Kind.MOUNT, "disk.usage", Entity.Kind.MOUNT, "disk.writable", Entity.Kind.PATH,
            "load", Entity.Kind.NODE, "memory", Entity.Kind.NODE, "kernel.module", Entity.Kind.MODULE,
            "disk.nvme", Entity.Kind.DEVICE);
    /** A check of each probe that sets every parameter, so that every default rule applies. */
    private static final Map<String, String> EVERY_PARAM = Map.of(
            "cpu", "{ sockets: 2, cores: 128, threads: 256 }",
            "disk.mount", "{ mount: /scratch, fstype: xfs, source: /dev/nvme1n1, options: [rw, nosuid] }",
            "disk.usage", "{ mount: /scratch }",
            "disk.writable", "{ path: /scratch, timeout: 2s }",
            "load", "{ }",
            "memory", "{ total: 512GiB, tolerance: 3% }",
            "kernel.module", "{ name: nvidia_uvm, loaded: true }",
            "disk.nvme", "{ count: 8 }");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z0-9_.]+)}");

    @TempDir
    Path root;

    private static ProbeSpec spec(String name) {
        return ProbeRegistry.load().find(name).orElseThrow(() -> new AssertionError(name + " is not registered")).spec();
    }

    @Test
    void everyHostProbeIsFoundByNameAndSaysWhatItIsAbout() {
        ProbeRegistry registry = ProbeRegistry.load();
        for (String name : KINDS.keySet()) {
            Probe p = registry.find(name).orElseThrow(() -> new AssertionError(name + " is not registered"));
            assertEquals(name, p.spec().name());
            assertTrue(p.getClass().getName().startsWith("dev.nhc.checks.host."), p.getClass().getName());
            assertEquals(KINDS.get(name), p.spec().entityKind(), name);
            assertTrue(p.spec().hasTag(Tags.HOST), name + " " + p.spec().tags());
            assertEquals(name.startsWith("disk."), p.spec().hasTag(Tags.STORAGE), name + " " + p.spec().tags());
            assertFalse(p.spec().hasTag(Tags.GPU), name);
        }
    }

    @Test
    void specsAreDocumentedAndRulesNameOnlyDeclaredFieldsAndParams() {
        for (String name : KINDS.keySet()) {
            ProbeSpec s = spec(name);
            assertFalse(s.description().isBlank(), name);
            assertFalse(s.entities().isBlank(), name);
            for (ParamSpec<?> p : s.params()) {
                assertFalse(p.description().isBlank(), name + " with: " + p.name());
            }
            for (FieldSpec f : s.fields()) {
                assertFalse(f.description().isBlank(), name + " field " + f.name());
            }
            for (DefaultRule r : s.defaultRules()) {
                for (Map.Entry<?, ?> c : ((Map<?, ?>) r.condition()).entrySet()) {
                    assertTrue(s.field((String) c.getKey()).isPresent(), name + " rule names undeclared field " + c.getKey());
                    references(String.valueOf(c.getValue())).forEach(ref -> assertNamed(s, ref, name + " rule condition"));
                }
                for (String key : r.when().keySet()) {
                    assertTrue(s.param(key).isPresent(), name + " rule 'when' names undeclared param " + key);
                }
                assertFalse(r.message() == null || r.message().isBlank(), name + " rule without a message: " + r);
                references(r.message()).forEach(ref -> assertNamed(s, ref, name + " message"));
            }
        }
    }

    private static List<String> references(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static void assertNamed(ProbeSpec s, String ref, String where) {
        boolean known = ref.equals("entity") || s.field(ref).isPresent()
                || ref.startsWith("with.") && s.param(ref.substring(5)).isPresent();
        assertTrue(known, where + " names undeclared " + ref);
    }

    @Test
    void everyDefaultRuleCompilesForACheckThatSetsEveryParam() throws Exception {
        List<Probe> probes = new ArrayList<>();
        StringBuilder checks = new StringBuilder();
        for (String name : KINDS.keySet()) {
            probes.add(ProbeRegistry.load().find(name).orElseThrow());
            checks.append("- { name: c-").append(name.replace('.', '-')).append(", use: ").append(name)
                    .append(", with: ").append(EVERY_PARAM.get(name)).append(" }\n");
        }
        Plan plan = new Pipeline(root, probes.toArray(Probe[]::new)).plan(checks.toString());
        assertEquals(KINDS.size(), plan.checks().size());
    }

    @Test
    void theNamesDocsRelyOnExist() {
        ProbeSpec usage = spec("disk.usage");
        for (String f : List.of("used_percent", "free_bytes", "inodes_used_percent", "mounted")) {
            assertTrue(usage.field(f).isPresent(), f);
        }
        ProbeSpec mount = spec("disk.mount");
        for (String p : List.of("mount", "fstype", "source", "options")) {
            assertTrue(mount.param(p).isPresent(), p);
        }
        ProbeSpec memory = spec("memory");
        for (String f : List.of("total", "available", "swap_total", "swap_free")) {
            assertTrue(memory.field(f).isPresent(), f);
        }
        ProbeSpec load = spec("load");
        for (String f : List.of("load1", "load5", "load15", "load1_per_cpu")) {
            assertTrue(load.field(f).isPresent(), f);
        }
        ProbeSpec cpu = spec("cpu");
        for (String f : List.of("sockets", "cores", "threads")) {
            assertTrue(cpu.field(f).isPresent(), f);
            assertTrue(cpu.param(f).isPresent(), f);
        }
    }
}
