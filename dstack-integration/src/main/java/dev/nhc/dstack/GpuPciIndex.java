package dev.nhc.dstack;

import dev.nhc.model.CheckResult;
import dev.nhc.model.Observation;
import dev.nhc.model.Verdict;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPU indexes by PCI address, learned from the GPU probes' own observations of one verdict ("GPU 3"
 * with pci_bus_id "00000000:3B:00.0"). gpu.xid names a GPU only by its address ("GPU at PCI
 * 0000:3b:00.0") when nothing maps it for the probe, as in the daemon; without this its latched
 * XIDs and findings would reach the metrics without a gpu label, invisible to per-GPU alerts.
 */
final class GpuPciIndex {
    private static final Pattern AT_PCI = Pattern.compile("(?i)GPU at PCI\\s+(\\S+)");
    private static final Pattern ADDRESS = Pattern.compile("(?:([0-9a-f]{1,8}):)?([0-9a-f]{2}):([0-9a-f]{2})(?:\\.[0-7])?");

    private final Map<String, Integer> byAddress;

    private GpuPciIndex(Map<String, Integer> byAddress) {
        this.byAddress = byAddress;
    }

    static GpuPciIndex of(Verdict verdict) {
        Map<String, Integer> m = new HashMap<>();
        if (verdict != null) {
            for (CheckResult c : verdict.checks()) {
                for (Observation o : c.observations()) {
                    OptionalInt gpu = GpuIndex.of(c.probe(), o.entity());
                    String address = o.get("pci_bus_id") instanceof String s ? normalize(s) : null;
                    if (gpu.isPresent() && address != null) {
                        m.putIfAbsent(address, gpu.getAsInt());
                    }
                }
            }
        }
        return new GpuPciIndex(m);
    }

    /** The index of the GPU an entity such as "GPU at PCI 0000:3b:00.0" names, when a GPU probe saw that address. */
    OptionalInt of(String entity) {
        if (entity == null) {
            return OptionalInt.empty();
        }
        Matcher m = AT_PCI.matcher(entity.trim());
        String address = m.matches() ? normalize(m.group(1)) : null;
        Integer gpu = address == null ? null : byAddress.get(address);
        return gpu == null ? OptionalInt.empty() : OptionalInt.of(gpu);
    }

    /** "00000000:3B:00.0", "0000:3b:00", "3b:00.0" → "0000:3b:00" (domain, bus, device: the kernel's XID form); null if not an address. */
    static String normalize(String address) {
        Matcher m = ADDRESS.matcher(address.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return null;
        }
        String domain = m.group(1) == null ? "0000" : m.group(1);
        if (domain.length() > 4) {
            if (!domain.substring(0, domain.length() - 4).chars().allMatch(ch -> ch == '0')) {
                return null;
            }
            domain = domain.substring(domain.length() - 4);
        } else {
            domain = "0".repeat(4 - domain.length()) + domain;
        }
        return domain + ":" + m.group(2) + ":" + m.group(3);
    }
}
