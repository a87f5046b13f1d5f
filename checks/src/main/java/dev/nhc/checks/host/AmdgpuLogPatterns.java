package dev.nhc.checks.host;

import dev.nhc.checks.host.KernelLogPatterns.LogPattern;
import dev.nhc.model.Remedy;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The amdgpu driver's signatures among {@code kernel.log}'s default patterns, kept apart from the
 * others: what amdgpu prints when an AMD GPU is reset, hits an uncorrectable RAS error, stalls a
 * ring, faults on a page or fails to initialise. Each is written from the start of the driver's
 * message ({@code amdgpu 0000:0c:00.0: }, or the DRM core's {@code [drm:amdgpu_…] *ERROR*}), as
 * amdgpu's {@code dev_err}/{@code drm_err} print it (kernel.log matches every pattern from the start
 * of the kernel's record), and each is tested on real lines from public
 * bug reports (KernelLogAmdgpuTest, which names their sources).
 * <ul>
 *   <li>amdgpu GPU reset (fail): "GPU reset begin!" — amdgpu_device_gpu_recover() resets the GPU
 *       (and, on MI200/MI300, its XGMI hive): the jobs on it were killed.</li>
 *   <li>amdgpu uncorrectable error (fail): "uncorrectable hardware error(ERREVENT_…) detected!" —
 *       a RAS fatal error (amdgpu_ras.c), followed by a reset.</li>
 *   <li>amdgpu GPU init failure (fail): "Fatal error during GPU init", "amdgpu_device_ip_init
 *       failed", "probe of … failed with error" — the GPU is not usable until fixed.</li>
 *   <li>amdgpu hardware error logged (warn): MI300's "[Hardware Error]: Accelerator Check
 *       Architecture events logged" — the GPU logged RAS records (gpu.ecc judges the counts).</li>
 *   <li>amdgpu ring timeout (warn): "ring gfx_0.0.0 timeout, signaled seq=…" (older kernels:
 *       "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout") — a job stalled the GPU;
 *       often the job's own fault, and a reset that follows fails on its own.</li>
 *   <li>amdgpu page fault (warn): "[gfxhub] page fault (src_id:…" — a GPU memory access the job's
 *       page tables did not allow, like NVIDIA's XID 31.</li>
 * </ul>
 */
final class AmdgpuLogPatterns {
    /** How amdgpu's dev_err names the device: "amdgpu 0000:0c:00.0:". */
    private static final String DEVICE = "amdgpu [0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]: (?:amdgpu: )?";

    static final List<LogPattern> ALL = List.of(
            pattern("amdgpu GPU reset", DEVICE + "GPU reset begin!", KernelLogPatterns.FAIL,
                    "amdgpu reset an AMD GPU: the jobs on it were killed; if resets recur the GPU needs service", Remedy.NONE),
            pattern("amdgpu uncorrectable error", DEVICE + "(?:\\{\\d+\\})?uncorrectable hardware error\\(\\w+\\) detected!",
                    KernelLogPatterns.FAIL, "an AMD GPU reported an uncorrectable hardware (RAS) error", Remedy.RESET_GPU),
            pattern("amdgpu GPU init failure", DEVICE + "(?:Fatal error during GPU init|amdgpu_device_ip_init failed)"
                            + "|amdgpu: probe of [0-9a-fA-F:.]+ failed with error -?\\d+",
                    KernelLogPatterns.FAIL, "an AMD GPU failed to initialise: it is not usable until fixed", Remedy.REBOOT),
            pattern("amdgpu hardware error logged", DEVICE + "(?:\\{\\d+\\})?\\[Hardware Error\\]: Accelerator Check Architecture events logged",
                    KernelLogPatterns.WARN, "an AMD GPU logged hardware error records (ACA)", Remedy.NONE),
            pattern("amdgpu ring timeout", DEVICE + "ring \\S+ timeout, signaled seq="
                            + "|\\[drm:amdgpu_job_timedout \\[amdgpu\\]\\] \\*ERROR\\* ring \\S+ timeout",
                    KernelLogPatterns.WARN, "a job stalled an AMD GPU (ring timeout)", Remedy.NONE),
            pattern("amdgpu page fault", DEVICE + "\\[\\w+\\] (?:no-retry )?page fault \\(src_id:",
                    KernelLogPatterns.WARN, "an AMD GPU page fault (usually the job's own error)", Remedy.NONE));

    private AmdgpuLogPatterns() {
    }

    private static LogPattern pattern(String name, String regex, String severity, String message, Remedy remedy) {
        return new LogPattern(name, Pattern.compile(regex), severity, message, null, remedy, List.of());
    }
}
