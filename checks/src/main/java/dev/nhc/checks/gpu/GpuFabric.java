package dev.nhc.checks.gpu;

import java.util.Locale;

/**
 * One GPU's registration with the NVLink fabric of an NVSwitch system, as NVML's
 * {@code nvmlGpuFabricInfo} reports it (or {@code nvidia-smi -q} prints it under "Fabric"), in the
 * words nhc observes. A value the driver does not report is null: drivers before the V call have
 * no health mask, drivers before health summaries have no {@code health}.
 *
 * @param state         where the GPU is in registering with the fabric
 * @param status        the registration's result as NVML or nvidia-smi names it ("SUCCESS", "Success",
 *                      "NOT_READY (…)"); set only once the state is completed
 * @param statusOk      whether that result is success; set only once the state is completed
 * @param cliqueId      the fabric clique the GPU belongs to
 * @param clusterUuid   the fabric's cluster UUID; null when NVML reports all zeroes
 * @param health        the driver's summary of the health mask
 * @param bandwidthDegraded      NVLink bandwidth to the fabric is degraded
 * @param routeRecovery          the fabric is recovering a route to this GPU
 * @param routeUnhealthy         a route to this GPU is unhealthy
 * @param accessTimeoutRecovery  the fabric is recovering from an access timeout
 * @param incorrectConfiguration what is misconfigured ("none" when nothing is)
 */
public record GpuFabric(State state, String status, Boolean statusOk, Long cliqueId, String clusterUuid, Health health,
                        Boolean bandwidthDegraded, Boolean routeRecovery, Boolean routeUnhealthy, Boolean accessTimeoutRecovery,
                        String incorrectConfiguration) {

    /** nvmlGpuFabricState_t, in its order (NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0 … COMPLETED 3). */
    public enum State {
        NOT_SUPPORTED, NOT_STARTED, IN_PROGRESS, COMPLETED;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** NVML_GPU_FABRIC_HEALTH_SUMMARY_* 1–3 (0 is "not supported": no summary). */
    public enum Health {
        HEALTHY, UNHEALTHY, LIMITED_CAPACITY;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_* by value; 0 is "not supported". */
    private static final String[] INCORRECT_CONFIGURATION = {null, "none", "incorrect-sysguid", "incorrect-chassis-sn",
            "no-partition", "insufficient-nvlinks", "incompatible-gpu-firmware", "invalid-location", "gpu-state-invalid"};

    // The health mask's fields: a 2-bit true/false/not-supported value at these shifts, and the
    // configuration as a 4-bit value at bit 8 (NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_* / _WIDTH_*).
    private static final int SHIFT_DEGRADED_BW = 0;
    private static final int SHIFT_ROUTE_RECOVERY = 2;
    private static final int SHIFT_ROUTE_UNHEALTHY = 4;
    private static final int SHIFT_ACCESS_TIMEOUT_RECOVERY = 6;
    private static final int SHIFT_INCORRECT_CONFIGURATION = 8;

    /**
     * Decodes what NVML returned.
     *
     * @param state         nvmlGpuFabricState_t
     * @param statusText    how messages name the status code (e.g. "NOT_READY (Not Ready)")
     * @param clusterUuid   the 16 raw bytes of clusterUuid
     * @param healthMask    the V call's healthMask, or null from the older call
     * @param healthSummary the v3 struct's healthSummary, or null from older structs
     */
    public static GpuFabric fromNvml(int state, int status, String statusText, long cliqueId, byte[] clusterUuid, Long healthMask,
                                     Integer healthSummary) {
        State s = state >= 0 && state < State.values().length ? State.values()[state] : null;
        boolean completed = s == State.COMPLETED;
        Health health = healthSummary == null || healthSummary < 1 || healthSummary > 3 ? null : Health.values()[healthSummary - 1];
        Boolean degraded = null;
        Boolean recovery = null;
        Boolean unhealthy = null;
        Boolean timeout = null;
        String config = null;
        if (healthMask != null) {
            long m = healthMask;
            degraded = maskFlag(m, SHIFT_DEGRADED_BW);
            recovery = maskFlag(m, SHIFT_ROUTE_RECOVERY);
            unhealthy = maskFlag(m, SHIFT_ROUTE_UNHEALTHY);
            timeout = maskFlag(m, SHIFT_ACCESS_TIMEOUT_RECOVERY);
            int c = (int) ((m >> SHIFT_INCORRECT_CONFIGURATION) & 0xf);
            config = c < INCORRECT_CONFIGURATION.length ? INCORRECT_CONFIGURATION[c] : "unknown configuration problem " + c;
        }
        return new GpuFabric(s, completed ? statusText : null, completed ? status == 0 : null, s == State.NOT_SUPPORTED ? null : cliqueId,
                uuid(clusterUuid), health, degraded, recovery, unhealthy, timeout, config);
    }

    /** A 2-bit field of the health mask: 1 true, 2 false, 0 (or 3) not reported. */
    private static Boolean maskFlag(long mask, int shift) {
        int v = (int) ((mask >> shift) & 0x3);
        return v == 1 ? Boolean.TRUE : v == 2 ? Boolean.FALSE : null;
    }

    /** The 16 bytes as 8-4-4-4-12 hex, or null when all are zero (no cluster). */
    static String uuid(byte[] b) {
        if (b == null || b.length < 16) {
            return null;
        }
        boolean zero = true;
        StringBuilder s = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            zero &= b[i] == 0;
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                s.append('-');
            }
            s.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
        }
        return zero ? null : s.toString();
    }

    /**
     * The NVML health mask these values come from (what {@link #fromNvml} decodes), or null when
     * none of them is known: for writing a fake NVML scenario from a capture.
     */
    public Long healthMask() {
        if (bandwidthDegraded == null && routeRecovery == null && routeUnhealthy == null && accessTimeoutRecovery == null
                && incorrectConfiguration == null) {
            return null;
        }
        int config = 0;
        for (int i = 1; i < INCORRECT_CONFIGURATION.length; i++) {
            if (INCORRECT_CONFIGURATION[i].equals(incorrectConfiguration)) {
                config = i;
            }
        }
        return maskBits(bandwidthDegraded, SHIFT_DEGRADED_BW) | maskBits(routeRecovery, SHIFT_ROUTE_RECOVERY)
                | maskBits(routeUnhealthy, SHIFT_ROUTE_UNHEALTHY) | maskBits(accessTimeoutRecovery, SHIFT_ACCESS_TIMEOUT_RECOVERY)
                | (long) config << SHIFT_INCORRECT_CONFIGURATION;
    }

    private static long maskBits(Boolean flag, int shift) {
        return (flag == null ? 0L : flag ? 1L : 2L) << shift;
    }

    /** Whether NVML says this GPU is part of a fabric at all (any state but not-supported). */
    public boolean onFabric() {
        return state != null && state != State.NOT_SUPPORTED;
    }
}
