package dev.nhc.checks.gpu.amd;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static dev.nhc.rules.testing.Pipeline.findings;
import static dev.nhc.rules.testing.Pipeline.result;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpu.amd-events} as {@code nhc daemon} runs it: the watcher's queue in the context, the
 * check's state kept between runs in the test's state directory.
 */
class GpuAmdEventsProbeTest {
    private static final String CHECK = "- { name: amd-events, use: gpu.amd-events }";

    @TempDir
    Path root;

    private final AmdGpuEvents queue = new AmdGpuEvents();

    private Verdict run() throws Exception {
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        if (!Files.exists(root.resolve("proc/sys/kernel/random/boot_id"))) {
            boot("0f1a2b3c-boot-one");
        }
        return new Pipeline(root, new GpuAmdEventsProbe()).service(AmdGpuEvents.class, queue).run(CHECK);
    }

    private void boot(String id) throws Exception {
        Files.createDirectories(root.resolve("proc/sys/kernel/random"));
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), id + "\n");
    }

    private static List<Finding> bad(Verdict v) {
        return findings(v, "amd-events").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    private void event(int gpu, AmdGpuEvents.Type type) {
        queue.add(new AmdGpuEvents.Event(gpu, String.format("0000:%02x:00.0", 0x0c + 0x16 * gpu), type, "reset from the test",
                Instant.parse("2026-03-01T10:00:00Z")));
    }

    @Test
    void aResetFailsTheGpuAndStaysFailingUntilRebootOrClear() throws Exception {
        queue.watching(8);
        event(2, AmdGpuEvents.Type.GPU_PRE_RESET);
        event(2, AmdGpuEvents.Type.GPU_POST_RESET);

        Verdict first = run();
        Verdict later = run();

        for (Verdict v : List.of(first, later)) {
            assertThat(bad(v)).singleElement().satisfies(f -> {
                assertThat(f.entity()).isEqualTo(Entity.gpu(2, "0000:38:00.0"));
                assertThat(f.severity()).isEqualTo(Severity.FAIL);
                assertThat(f.remedy()).isEqualTo(Remedy.REBOOT);
                assertThat(f.latched()).as("latched until reboot: what Slurm's repair ladder may reboot for, as a fatal XID").isTrue();
                assertThat(f.message()).isEqualTo("GPU 2 (0000:38:00.0): reset by amdgpu (1 reset at 2026-03-01T10:00:00Z: reset from the test): "
                        + "the jobs on it, and on its XGMI hive, were killed; if resets recur the GPU needs service — stays failing until "
                        + "reboot or `nhc clear amd-events`");
            });
        }
        boot("0f1a2b3c-boot-two");
        assertThat(bad(run())).isEmpty();
    }

    @Test
    void aRingHangWarnsForTheRunThatSawIt() throws Exception {
        queue.watching(8);
        event(5, AmdGpuEvents.Type.RING_HANG);
        event(5, AmdGpuEvents.Type.VMFAULT);

        assertThat(bad(run())).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("GPU 5 (0000:7a:00.0): 1 ring hang this run: amdgpu stopped a job that stalled the GPU");
        });
        assertThat(bad(run())).isEmpty();
    }

    @Test
    void withoutTheDaemonsWatcherTheCheckIsSkippedNotPassed() throws Exception {
        Verdict notWatching = run();
        Verdict oneShot = new Pipeline(root, new GpuAmdEventsProbe()).run(CHECK);

        assertThat(result(notWatching, "amd-events").status()).isEqualTo(CheckStatus.SKIPPED);
        assertThat(result(notWatching, "amd-events").note()).isEqualTo("no AMD GPU events are watched here (no AMD GPUs)");
        assertThat(result(oneShot, "amd-events").status()).isEqualTo(CheckStatus.SKIPPED);
        assertThat(result(oneShot, "amd-events").note()).contains("daemon only");
    }

    @Test
    void aDamagedLatchIsUnknownNeverAPass() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).service(AmdGpuEvents.class, queue);
        boot("0f1a2b3c-boot-one");
        ctx.state().put("amd_resets.boot_id", "0f1a2b3c-boot-one");
        ctx.state().put("amd_resets.latched", List.of(java.util.Map.of("pci", "not a pci address", "count", 1L)));

        var r = new GpuAmdEventsProbe().probe(ctx);

        assertThat(r.observations().get(0).fields()).containsEntry("state_lost", true)
                .containsEntry("state_problem", "1 saved entry is damaged");
    }

    /** A flood the check could not keep up with is said, not silently forgotten: a reset may have been among what was dropped. */
    @Test
    void eventsDroppedUnreadWarn() throws Exception {
        queue.watching(8);
        for (int i = 0; i < AmdGpuEvents.LIMIT + 3; i++) {
            event(1, AmdGpuEvents.Type.VMFAULT);
        }

        List<Finding> first = bad(run());

        assertThat(first).singleElement().satisfies(f -> {
            assertThat(f.entity()).isEqualTo(GpuAmdEventsProbe.EVENTS);
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.message()).isEqualTo("3 AMD SMI events were dropped before the check read them: a GPU reset among them shows in "
                    + "the kernel log (kernel.log's amdgpu patterns)");
        });
        assertThat(bad(run())).isEmpty();
    }
}
