package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kernel.log's amdgpu defaults ({@link AmdgpuLogPatterns}) on real amdgpu lines from public bug
 * reports, each with its source; and the lines around them that are no fault.
 */
class KernelLogAmdgpuTest {
    private static final String LOG = "/var/log/kern.log";
    private static final String KLOG = "- { name: klog, use: kernel.log, with: { log: " + LOG + " } }";

    @TempDir
    Path root;

    @BeforeEach
    void bootId() throws IOException {
        Path boot = root.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(boot.getParent());
        Files.writeString(boot, "boot-1\n");
    }

    private Verdict judge(String lines) throws Exception {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, lines);
        return new Pipeline(root, new KernelLogProbe()).run(KLOG);
    }

    private static List<Finding> problems(Verdict v) {
        return Pipeline.findings(v, "klog").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    /** pattern, severity, the real line, where it was published. */
    static Stream<Arguments> realLines() {
        return Stream.of(
                Arguments.of("amdgpu GPU reset", Severity.FAIL,
                        "[ 2237.944732] amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!",
                        "https://github.com/ROCm/legacy-rocm-build/issues/2533 (RX 7900 XT, ROCm 5.7)"),
                Arguments.of("amdgpu GPU reset", Severity.FAIL,
                        "[  312.522683] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1",
                        "https://github.com/pop-os/cosmic-epoch/issues/3764 (kernel 7.0)"),
                Arguments.of("amdgpu uncorrectable error", Severity.FAIL,
                        "[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
                        "https://github.com/ROCm/legacy-rocm-build/issues/1886 (MI50)"),
                Arguments.of("amdgpu uncorrectable error", Severity.FAIL,
                        "[13850.912648] amdgpu 0000:1c:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
                        "https://github.com/ROCm/legacy-rocm-build/issues/4021 (MI300X, ROCm 6.2.3)"),
                Arguments.of("amdgpu hardware error logged", Severity.WARN,
                        "[13850.927924] amdgpu 0000:42:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged",
                        "https://github.com/ROCm/legacy-rocm-build/issues/4021 (MI300X, ROCm 6.2.3)"),
                Arguments.of("amdgpu GPU init failure", Severity.FAIL,
                        "[    9.292134] amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init",
                        "https://github.com/ROCm/rocm-install-on-linux/issues/615 (MI210, ROCm 7.1)"),
                Arguments.of("amdgpu GPU init failure", Severity.FAIL,
                        "[    9.292551] amdgpu: probe of 0000:83:00.0 failed with error -12",
                        "https://github.com/ROCm/rocm-install-on-linux/issues/615 (MI210, ROCm 7.1)"),
                Arguments.of("amdgpu GPU init failure", Severity.FAIL,
                        "[    4.032970] amdgpu 0000:43:00.0: amdgpu_device_ip_init failed",
                        "https://github.com/ROCm/amdgpu/pull/113 (Vega 20)"),
                Arguments.of("amdgpu ring timeout", Severity.WARN,
                        "[127033.279661] amdgpu 0000:c5:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=2662395, emitted seq=2662397",
                        "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
                Arguments.of("amdgpu ring timeout", Severity.WARN,
                        "Oct  7 12:58:23 Ubuntu-Desktop kernel: [ 2237.944235] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, "
                                + "signaled seq=16060, emitted seq=16062",
                        "https://github.com/ROCm/legacy-rocm-build/issues/2533 (RX 7900 XT, ROCm 5.7)"),
                Arguments.of("amdgpu ring timeout", Severity.WARN,
                        "[ 6765.045954] amdgpu 0000:03:00.0: ring gfx_0.0.0 timeout, signaled seq=10045651, emitted seq=10045655",
                        "https://github.com/ValveSoftware/SteamOS/issues/2802 (RX 7800 XT, kernel 7.2.5: no 'amdgpu: ' after the device)"),
                Arguments.of("amdgpu page fault", Severity.WARN,
                        "[ 4778.915423] amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)",
                        "https://github.com/ROCm/amdgpu/issues/172"),
                Arguments.of("amdgpu page fault", Severity.WARN,
                        "[428921.293036] amdgpu 0000:83:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:0 pasid:0, for process  pid 0 "
                                + "thread  pid 0)",
                        "https://github.com/ROCm/legacy-rocm-build/issues/2766 (gfx1102, ROCm 6.0)"));
    }

    @ParameterizedTest(name = "{0}: {3}")
    @MethodSource("realLines")
    void aRealAmdgpuLineIsJudgedByItsPattern(String pattern, Severity severity, String line, String source) throws Exception {
        List<Finding> found = problems(judge(line + "\n"));

        assertThat(found).as(source).singleElement().satisfies(f -> {
            assertThat(f.entity().label()).isEqualTo(pattern);
            assertThat(f.severity()).isEqualTo(severity);
        });
    }

    /** The lines around a reset that say nothing is wrong, from the same reports. */
    @Test
    void amdgpusOrdinaryLinesAreNoFault() throws Exception {
        Verdict v = judge("""
                [ 2238.057431] amdgpu 0000:0a:00.0: amdgpu: MODE2 reset
                [127037.807536] amdgpu 0000:c5:00.0: amdgpu: GPU reset succeeded, trying to resume
                [127037.808184] amdgpu 0000:c5:00.0: amdgpu: SMU is resuming...
                [127037.960564] amdgpu 0000:c5:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0
                [Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: MEM ECC is active.
                [    9.291714] amdgpu 0000:83:00.0: amdgpu: initializing kernel modesetting (ALDEBARAN 0x1002:0x740F 0x1002:0x0C34 0x02).
                """);

        assertThat(problems(v)).isEmpty();
    }
}
