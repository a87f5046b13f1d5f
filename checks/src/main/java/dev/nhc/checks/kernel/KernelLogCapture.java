package dev.nhc.checks.kernel;

import java.nio.file.Path;

/**
 * A captured kernel log that replaces every kernel-log check's own source in a replay
 * ({@code nhc replay --kernel-log FILE}): offered through ProbeContext#service, read whole, its
 * lines judged whatever boot they came from.
 */
public record KernelLogCapture(Path file) {
}
