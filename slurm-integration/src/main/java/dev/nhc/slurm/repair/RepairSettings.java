package dev.nhc.slurm.repair;

import java.time.Duration;

/**
 * The repair ladder's part of the {@code slurm:} section (off unless {@code repair: reboot}).
 *
 * @param reboot               nhc asks Slurm to reboot a node whose latched faults a reboot repairs
 * @param resetGpuByReboot     a {@code reset-gpu} remedy climbs to a reboot: nhc cannot reset a GPU itself
 *                             (NVML has no reset call, and a reset needs the GPU idle, on NVSwitch systems
 *                             every GPU and the fabric manager stopped; a reboot does all of that)
 * @param maxReboots           the same fault back after this many reboots within {@code window}: FAIL
 * @param window               how long a reboot counts towards {@code maxReboots}
 * @param maxRebootingFraction circuit breaker: never put more than this share of the nodes into a reboot nhc asked for
 */
public record RepairSettings(boolean reboot, boolean resetGpuByReboot, int maxReboots, Duration window, double maxRebootingFraction) {
    public static final RepairSettings OFF = new RepairSettings(false, false, 2, Duration.ofDays(7), 0.1);
}
