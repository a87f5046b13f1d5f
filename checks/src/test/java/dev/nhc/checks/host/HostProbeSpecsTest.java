package dev.nhc.checks.host;

import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code nhc list} prints and the config is validated against: registered, documented, self-consistent. */
class HostProbeSpecsTest {
    private static final List<String> NAMES = List.of("cpu", "disk.mount", "disk.usage", "disk.writable", "load", "memory");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z0-9_]+)}");

    @Test
    void everyHostProbeIsFoundByName() {
        ProbeRegistry registry = ProbeRegistry.load();
        for (String name : NAMES) {
            Probe p = registry.find(name).orElseThrow(() -> new AssertionError(name + " is not registered"));
            assertEquals(name, p.spec().name());
            assertTrue(p.getClass().getName().startsWith("dev.nhc.checks.host."), p.getClass().getName());
        }
    }

    @Test
    void specsAreDocumentedAndRulesNameOnlyDeclaredFields() {
        for (String name : NAMES) {
            ProbeSpec s = ProbeRegistry.load().find(name).orElseThrow().spec();
            assertFalse(s.description().isBlank(), name);
            assertFalse(s.entities().isBlank(), name);
            for (ParamSpec p : s.params()) {
                assertFalse(p.description().isBlank(), name + " with: " + p.name());
            }
            for (FieldSpec f : s.fields()) {
                assertFalse(f.description().isBlank(), name + " field " + f.name());
            }
            for (DefaultRule r : s.defaultRules()) {
                for (Object field : ((Map<?, ?>) r.condition()).keySet()) {
                    assertTrue(s.field((String) field).isPresent(), name + " rule names undeclared field " + field);
                }
                Matcher m = PLACEHOLDER.matcher(r.message());
                while (m.find()) {
                    String ref = m.group(1);
                    assertTrue(ref.equals("entity") || s.field(ref).isPresent(), name + " message names undeclared field " + ref);
                }
            }
        }
    }

    @Test
    void theNamesDocsRelyOnExist() {
        ProbeRegistry r = ProbeRegistry.load();
        ProbeSpec usage = r.find("disk.usage").orElseThrow().spec();
        for (String f : List.of("used_percent", "free_bytes", "inodes_used_percent")) {
            assertTrue(usage.field(f).isPresent(), f);
        }
        ProbeSpec mount = r.find("disk.mount").orElseThrow().spec();
        for (String p : List.of("mount", "fstype", "source", "options")) {
            assertTrue(mount.param(p).isPresent(), p);
        }
        ProbeSpec memory = r.find("memory").orElseThrow().spec();
        for (String f : List.of("total", "available", "swap_total", "swap_free")) {
            assertTrue(memory.field(f).isPresent(), f);
        }
        ProbeSpec load = r.find("load").orElseThrow().spec();
        for (String f : List.of("load1", "load5", "load15")) {
            assertTrue(load.field(f).isPresent(), f);
        }
    }
}
