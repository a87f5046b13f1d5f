package dev.nhc.checks.gpu;

/** The kinds of GPU data a probe needs; a capture may hold some and not others, and the probes whose data is absent are skipped. */
public enum GpuData {
    INVENTORY("inventory (names, UUIDs, bus ids)"),
    ECC("ECC counters"),
    MEMORY_REPAIR("row remapping / retired pages"),
    PCIE("PCIe link"),
    NVLINK("GPU-to-GPU link state (NVLink, XGMI)"),
    THERMAL("temperatures and clock events"),
    POWER("power readings"),
    FABRIC("NVLink fabric state");

    private final String description;

    GpuData(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
