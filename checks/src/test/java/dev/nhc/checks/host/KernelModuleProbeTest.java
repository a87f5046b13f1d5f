package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelModuleProbeTest {
    private static final ProbeSpec SPEC = new KernelModuleProbe().spec();

    @TempDir
    Path root;

    @BeforeEach
    void tree() throws Exception {
        TestProbeContext files = new TestProbeContext(root);
        files.write("/proc/modules", "nvidia_uvm 1945600 4 - Live 0x0000000000000000 (POE)\n"
                + "nvidia 56733696 520 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
                + "ib_core 466944 8 - Unloading 0x0000000000000000\n");
        files.write("/sys/module/nvidia/initstate", "live\n");
        Files.createDirectories(root.resolve("sys/module/ext4/parameters")); // built in: no initstate
    }

    private Observation observe(String with) {
        return new KernelModuleProbe().probe(new TestProbeContext(root).with(SPEC, with)).observations().get(0);
    }

    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new KernelModuleProbe()).run("- { name: mod, use: kernel.module, with: " + with + " }"), "mod");
    }

    @Test
    void aLoadedModulePassesWithItsRefcountAndState() throws Exception {
        Observation o = observe("{ name: nvidia-uvm }");
        assertEquals(Entity.of(Entity.Kind.MODULE, "nvidia_uvm", "kernel module nvidia_uvm"), o.entity());
        assertEquals(true, o.get("loaded"));
        assertEquals(false, o.get("builtin"));
        assertEquals("Live", o.get("state"));
        assertEquals(4L, o.get("refcount"));
        Finding f = judge("{ name: nvidia-uvm }");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals(Entity.of(Entity.Kind.MODULE, "nvidia_uvm", "kernel module nvidia_uvm"), f.entity());
    }

    @Test
    void aBuiltInModuleCountsAsLoaded() throws Exception {
        Observation o = observe("{ name: ext4 }");
        assertEquals(true, o.get("loaded"));
        assertEquals(true, o.get("builtin"));
        assertFalse(o.fields().containsKey("state"));
        assertEquals(Severity.PASS, judge("{ name: ext4 }").severity());
    }

    @Test
    void aMissingModuleFails() throws Exception {
        assertEquals(false, observe("{ name: nvidia_peermem }").get("loaded"));
        Finding f = judge("{ name: nvidia_peermem }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("kernel module nvidia_peermem is not loaded", f.message());
    }

    @Test
    void aModuleThatIsUnloadingWarns() throws Exception {
        Finding f = judge("{ name: ib_core }");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("kernel module ib_core is Unloading", f.message());
    }

    @Test
    void aModuleThatMustNotBeLoadedFailsWhenItIs() throws Exception {
        Finding loaded = judge("{ name: nvidia, loaded: false }");
        assertEquals(Severity.FAIL, loaded.severity());
        assertEquals("kernel module nvidia is loaded but should not be", loaded.message());
        Finding builtin = judge("{ name: ext4, loaded: false }");
        assertEquals(Severity.FAIL, builtin.severity());
        assertEquals("kernel module ext4 is built into the kernel but should not be", builtin.message());
        assertEquals(Severity.PASS, judge("{ name: nouveau, loaded: false }").severity());
        // Unloading is only worth a warning for a module that should be there.
        assertEquals(Severity.FAIL, judge("{ name: ib_core, loaded: false }").severity());
    }

    @Test
    void aConfigsWarnNoneDropsTheStateWarning() throws Exception {
        Pipeline p = new Pipeline(root, new KernelModuleProbe());
        assertEquals(Severity.PASS, Pipeline.severity(p.run("- { name: mod, use: kernel.module, with: { name: ib_core }, warn: none }"), "mod"));
        Finding own = Pipeline.only(p.run("- { name: mod, use: kernel.module, with: { name: nvidia }, warn: { refcount: \"> 500\" } }"), "mod");
        assertEquals(Severity.WARN, own.severity());
        assertEquals("kernel module nvidia: refcount 520 > 500", own.message());
    }

    @Test
    void noModuleInformationAtAllIsUnknown(@TempDir Path empty) throws Exception {
        Observation o = new KernelModuleProbe().probe(new TestProbeContext(empty).with(SPEC, "{ name: nvidia }")).observations().get(0);
        assertFalse(o.readable());
        assertEquals("cannot read " + empty.resolve("proc/modules") + " nor " + empty.resolve("sys/module"), o.problem());
        Finding f = Pipeline.only(new Pipeline(empty, new KernelModuleProbe()).run("- { name: mod, use: kernel.module, with: { name: nvidia } }"), "mod");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals(Entity.of(Entity.Kind.MODULE, "nvidia", "kernel module nvidia"), f.entity());
    }

    @Test
    void anUnreadableModuleListIsUnknownWithTheReason() throws Exception {
        // A directory where the list should be: unreadable even for root, who may read any file.
        Path modules = root.resolve("proc/modules");
        Files.delete(modules);
        Files.createDirectory(modules);
        Observation o = observe("{ name: nvidia }");
        assertFalse(o.readable());
        assertEquals("cannot read " + modules + ": Is a directory", o.problem());
        Finding f = judge("{ name: nvidia }");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("cannot read " + modules + ": Is a directory", f.message());
    }

    @Test
    void aNameThatIsNoModuleNameIsAConfigError() {
        Pipeline p = new Pipeline(root, new KernelModuleProbe());
        assertTrue(ConfigErrors.at(p, "- { name: m, use: kernel.module, with: { name: ../nvidia } }", "../nvidia")
                .endsWith("'../nvidia' is not a module name such as nvidia_uvm (letters, digits, '_' and '-')"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: kernel.module, with: { name: nvidia, loaded: maybe } }", "maybe")
                .contains("must be true or false"));
    }
}
