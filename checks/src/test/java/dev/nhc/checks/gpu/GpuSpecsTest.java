package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.model.Entity;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.nhc.rules.testing.Pipeline.about;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the GPU probes declare (tags, entities, typed params, the shared rules for a lost, hung or
 * unreadable GPU), that a bad parameter is a config error at its place, and that a config's own
 * fail:/warn: replace the defaults.
 */
class GpuSpecsTest {

    @TempDir
    Path root;

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    private static final Map<String, String> HEALTH_SYSTEM = Map.of("gpu.inventory", Tags.PCIE, "gpu.ecc", Tags.MEMORY,
            "gpu.memory-repair", Tags.MEMORY, "gpu.pcie", Tags.PCIE, "gpu.nvlink", Tags.NVLINK, "gpu.thermal", Tags.THERMAL,
            "gpu.power", Tags.POWER);

    @Test
    void everyGpuProbeSaysWhatItIsAndCarriesTheRulesForALostHungOrUnreadableGpu() {
        for (Probe p : GpuChecks.probes()) {
            ProbeSpec s = p.spec();
            // The vendors a probe supports are its tags: NVML's for NVIDIA, amd-smi for AMD (gpu.nvlink is NVIDIA's alone).
            if (s.name().equals("gpu.nvlink")) {
                assertThat(s.tags()).as(s.name()).containsExactly(Tags.GPU, Tags.NVML, HEALTH_SYSTEM.get(s.name()));
            } else {
                assertThat(s.tags()).as(s.name()).containsExactly(Tags.GPU, Tags.NVML, "amd-smi", HEALTH_SYSTEM.get(s.name()));
            }
            assertThat(GpuVendor.supportedBy(s)).as(s.name())
                    .isEqualTo(s.name().equals("gpu.nvlink") ? java.util.EnumSet.of(GpuVendor.NVIDIA) : GpuSpecs.ALL_VENDORS);
            assertThat(s.entityKind()).as(s.name()).isEqualTo(Entity.Kind.GPU);
            assertThat(s.timeoutFails()).as(s.name()).isTrue();
            assertThat(s.fields()).as(s.name()).extracting(f -> f.name())
                    .contains("gpu", "vendor", "pci_bus_id", "lost", "responding", "gpu_call", "gpu_error", "unreadable_values",
                            "gpu_library_available", "nvml_call", "nvml_error", "nvml_available");
            List<DefaultRule> fails = s.defaultRules().stream().filter(r -> r.severity() == Severity.FAIL).toList();
            assertThat(fails.get(0)).as(s.name()).satisfies(r -> {
                assertThat(r.condition()).isEqualTo(Map.of("lost", true));
                assertThat(r.remedy()).isEqualTo(Remedy.REBOOT);
                assertThat(r.slurmState()).isEqualTo(SlurmState.FAIL);
            });
            assertThat(fails.get(1).condition()).as(s.name()).isEqualTo(Map.of("responding", false));
            assertThat(s.defaultRules()).as(s.name()).filteredOn(r -> r.severity() == Severity.UNKNOWN).singleElement()
                    .satisfies(r -> assertThat(new java.util.ArrayList<Object>((List<?>) r.condition()))
                            .contains(Map.of("lost", true), Map.of("gpu_library_available", false)));
        }
    }

    @Test
    void theDefaultRulesCompileWithEveryParameterSetAndWithNone() throws Exception {
        Pipeline p = new Pipeline(root, GpuChecks.probes());
        assertThat(p.plan(GpuChecks.everyCheck("{ count: 8, model: H100 }", "{ expected_links: 18 }")).checks()).hasSize(7);
        assertThat(p.plan(GpuChecks.everyCheck("", "")).checks()).hasSize(7);
    }

    /** The config's problem for this one check line (line 7 of the Pipeline's YAML), at the column of {@code value}. */
    private void rejects(String check, String value, String where, String problem) {
        Pipeline p = new Pipeline(root, GpuChecks.probes());
        int column = ("  " + check).indexOf(value) + 1;
        assertThatThrownBy(() -> p.plan(check)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("nhc.yaml:7:" + column + ": " + where).hasMessageContaining(problem);
    }

    @Test
    void aBadParameterIsAConfigErrorAtItsPlace() {
        rejects("- { name: gpus, use: gpu.inventory, with: { count: -1 } }", "-1",
                "'count' in check 'gpus' (gpu.inventory) with:", "must be 0 or more");
        rejects("- { name: gpus, use: gpu.inventory, with: { count: eight } }", "eight",
                "'count' in check 'gpus' (gpu.inventory) with:", "eight");
        rejects("- { name: gpus, use: gpu.inventory, with: { model: \" \" } }", "\" \"",
                "'model' in check 'gpus' (gpu.inventory) with:", "must not be empty (leave 'model' out to accept any GPU)");
        rejects("- { name: links, use: gpu.nvlink, with: { expected_links: 0 } }", "0 }",
                "'expected_links' in check 'links' (gpu.nvlink) with:", "must be 1 to 36 (NVML's most links per GPU)");
        rejects("- { name: links, use: gpu.nvlink, with: { expected_links: 37 } }", "37",
                "'expected_links' in check 'links' (gpu.nvlink) with:", "must be 1 to 36");
        rejects("- { name: links, use: gpu.nvlink, with: { expected: 18 } }", "expected",
                "unknown key 'expected' in check 'links' (gpu.nvlink) with:", "(known: expected_links)");
    }

    @Test
    void aConfigsFailReplacesTheDefaultsYetALostGpuIsNeverAPass() throws Exception {
        var gpus = FakeNvml.healthyH100s(3);
        gpus.get(0).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 0, "pending", true, "failure", false));
        gpus.get(1).put("returns", Map.of("nvmlDeviceGetRemappedRows", 15));
        gpus.get(2).put("remapped_rows", Map.of("correctable", 0, "uncorrectable", 0, "pending", false, "failure", true));
        FakeNvml.use(FakeNvml.scenario(gpus));

        Verdict v = GpuChecks.onFakeNvml(root).run("- { name: repair, use: gpu.memory-repair, fail: { remap_failure: true } }");

        // the pending remap no longer fails, the remap failure does (with the config's automatic message)
        assertThat(about(v, "repair", "GPU 0").severity()).isEqualTo(Severity.PASS);
        assertThat(about(v, "repair", "GPU 2")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.FAIL);
            assertThat(f.message()).isEqualTo("GPU 2: remap_failure is true");
        });
        // the default FAIL for a lost GPU went with the others, but the shared UNKNOWN rule is never replaced
        assertThat(about(v, "repair", "GPU 1")).satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(f.message()).isEqualTo("GPU 1 (0000:29:00.0) is lost: nvmlDeviceGetRemappedRows returned GPU_IS_LOST (GPU is lost)");
        });

        Verdict quiet = GpuChecks.onFakeNvml(root).run("- { name: quiet, use: gpu.memory-repair, fail: none }");
        assertThat(quiet.findings()).extracting(f -> f.entity().label(), f -> f.severity())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("GPU 1", Severity.UNKNOWN));
    }
}
