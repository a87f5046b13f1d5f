package dev.nhc.checks.gpu.fabric;

import java.nio.file.Path;

/**
 * A captured fabric manager log that {@code gpu.fabric} judges instead of the node's own
 * ({@code nhc replay --fabricmanager-log FILE}): offered through ProbeContext#service, read whole,
 * every error judged whatever boot it came from. In a replay the probe reads nothing of the
 * machine it runs on: no fabric manager service, no live log.
 */
public record FabricManagerLogCapture(Path file) {
}
