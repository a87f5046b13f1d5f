package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.gpu.xid.SxidCatalogue;

import java.time.Instant;

/**
 * One error the fabric manager logged.
 *
 * @param kind       an NVSwitch (an SXid line) or a GPU (an NVLink error block of NVLink 5 systems)
 * @param device     the NVSwitch's PCI bus id (short form) or, when the line names none,
 *                   {@code "physical id N"}; the GPU's GUID
 * @param fatal      a fatal error (the fabric manager's own word), else non-fatal
 * @param code       the SXid for an NVSwitch, the errorCode for a GPU; null when the line has none
 * @param physicalId the NVSwitch's physical id, or null
 * @param port       the port, or null
 * @param stamp      the line's time as the log prints it ("Jul 23 2024 07:53:55"), or null
 * @param time       that time as an instant, or null when the line has no time nhc understands
 */
public record FabricError(Device kind, String device, boolean fatal, String code, Long physicalId, Long port, String stamp, Instant time) {

    public enum Device { NVSWITCH, GPU }

    /** "SXid 20034 (LTSSM Fault Up) on port 33" (the name from NVIDIA's SXid catalogue), "NVLink errorCode 0x02 on port 61": for messages. */
    public String what() {
        StringBuilder s = new StringBuilder();
        if (kind == Device.NVSWITCH) {
            s.append(code == null ? "SXid (no number)"
                    : code.length() <= 9 && code.chars().allMatch(Character::isDigit) ? SxidCatalogue.get().name(Integer.parseInt(code)) : "SXid " + code);
        } else {
            s.append(code == null ? "NVLink error" : "NVLink errorCode " + code);
        }
        if (port != null) {
            s.append(" on port ").append(port);
        }
        return s.toString();
    }
}
