package dev.nhc.checks.host;

import dev.nhc.units.Quantity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The patterns {@code kernel.log} counts: its defaults, or a check's {@code patterns:} list.
 * A pattern's {@code severity} is what the probe's default rules read ({@code fail} patterns
 * fail and latch, {@code warn} patterns warn for the run that saw them); a config's own
 * {@code fail:}/{@code warn:} replaces those rules, as for every probe.
 *
 * <p>The NIC and link defaults come from what the kernel and its NIC drivers print (Linux
 * {@code drivers/pci/pci.c} {@code __pcie_print_link_status}, mlx5 {@code health.c} and
 * {@code en_main.c}, the Intel and Broadcom drivers' link messages, bonding, systemd-networkd):
 * <ul>
 *   <li>NIC PCIe link degraded (warn): a NIC driver's "63.008 Gb/s available PCIe bandwidth,
 *       limited by 8.0 GT/s PCIe x8 link at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s
 *       PCIe x16 link)" — the card trained narrower or slower than it can. Only NIC drivers'
 *       lines: the PCI core prints the same for every device at enumeration.</li>
 *   <li>NIC link down (warn, not in the first 5 minutes after boot, while interfaces come up):
 *       mlx5's "Link down", Intel and Broadcom's "NIC Link is Down", bonding's "link status
 *       definitely down", systemd-networkd's "Lost carrier" (in a syslog file) — a link flap.
 *       A link that stays down is for a port check.</li>
 *   <li>NIC fatal error (fail): mlx5's "device's health compromised", "Fatal error N detected",
 *       "firmware internal error", "unrecoverable hardware error", "health recovery failed" and
 *       its devlink {@code fw_fatal} reporter.</li>
 * </ul>
 */
final class KernelLogPatterns {
    static final String FAIL = "fail";
    static final String WARN = "warn";
    private static final List<String> KEYS = List.of("regex", "severity", "message", "name", "after_boot");
    /** The name of the log reading's own entity, which no pattern may take. */
    static final String RESERVED = dev.nhc.checks.kernel.KernelLogSpec.LOG_ENTITY.id();

    /** One pattern: lines matching {@code regex}, after {@code afterBoot} (null: any time), count for the entity {@code name}. */
    record LogPattern(String name, Pattern regex, String severity, String message, Duration afterBoot) {
        boolean fails() {
            return FAIL.equals(severity);
        }
    }

    private static final String NIC_DRIVERS = "(?:mlx5_core|mlx4_core|mlx4_en|bnxt_en|ice|i40e|ixgbe|igb|qede|qed|cxgb4|nfp|ionic|idpf|ena|efa)";

    /** The host and NIC defaults, then amdgpu's (their own list: {@link AmdgpuLogPatterns}). */
    static final List<LogPattern> DEFAULTS = concat(List.of(
            pattern("filesystem read-only", "remounted read-only|Remounting filesystem read-only|remounting filesystem read-only",
                    FAIL, "a filesystem was remounted read-only", null),
            pattern("block I/O error", "Buffer I/O error", FAIL, "block device I/O errors", null),
            pattern("soft lockup", "soft lockup", WARN, "a CPU soft lockup", null),
            pattern("hung task", "hung_task|blocked for more than \\d+ seconds", WARN, "tasks hung in the kernel", null),
            pattern("out of memory", "Out of memory|oom-kill:", WARN, "the OOM killer ran", null),
            pattern("machine check", "Machine check events logged|mce: \\[Hardware Error\\]", WARN, "machine check (hardware) errors", null),
            pattern("filesystem error", "EXT4-fs error|XFS \\(\\S+\\): Corruption", WARN, "filesystem errors", null),
            pattern("NIC PCIe link degraded", "\\b" + NIC_DRIVERS + " [0-9a-fA-F:.]+: .*available PCIe bandwidth, limited by .*\\(capable of ",
                    WARN, "a NIC's PCIe link trained below its capability", null),
            pattern("NIC link down", "\\b" + NIC_DRIVERS + " \\S+ \\S+: (?:Link down|NIC Link is Down)"
                            + "|link status definitely down|\\bLost carrier\\b",
                    WARN, "a network link went down", Duration.ofMinutes(5)),
            pattern("NIC fatal error", "\\bmlx5_core \\S+: .*(?:device's health compromised|Fatal error \\d+ detected|firmware internal error"
                            + "|unrecoverable hardware error|health recovery failed|fw_fatal)",
                    FAIL, "a Mellanox/NVIDIA NIC (mlx5) reported a fatal firmware or hardware error", null)), AmdgpuLogPatterns.ALL);

    private static List<LogPattern> concat(List<LogPattern> a, List<LogPattern> b) {
        List<LogPattern> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    private KernelLogPatterns() {
    }

    private static LogPattern pattern(String name, String regex, String severity, String message, Duration afterBoot) {
        return new LogPattern(name, Pattern.compile(regex), severity, message, afterBoot);
    }

    /** Why a {@code patterns:} value is not acceptable, or null (a config error at load, with its place). */
    static String problem(Object raw) {
        try {
            parse(raw);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** Reads a {@code patterns:} list; every problem names the item. */
    static List<LogPattern> parse(Object raw) {
        if (!(raw instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException("must be a non-empty list of {regex, severity, message, name, after_boot}");
        }
        List<LogPattern> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "patterns[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException(where + " must be a map {regex, severity, message, name, after_boot}");
            }
            for (Object k : m.keySet()) {
                if (!KEYS.contains(String.valueOf(k))) {
                    throw new IllegalArgumentException(where + ": unknown key '" + k + "' (known: " + String.join(", ", KEYS) + ")");
                }
            }
            Object regex = m.get("regex");
            if (regex == null || regex.toString().isEmpty()) {
                throw new IllegalArgumentException(where + " needs 'regex'");
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex.toString());
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(where + ".regex is not a valid regular expression: " + e.getDescription()
                        + " near index " + e.getIndex() + " of " + regex);
            }
            String severity = m.get("severity") == null ? WARN : m.get("severity").toString().toLowerCase(Locale.ROOT);
            if (!severity.equals(WARN) && !severity.equals(FAIL)) {
                throw new IllegalArgumentException(where + ".severity must be warn or fail, not '" + m.get("severity") + "'");
            }
            Duration afterBoot = null;
            if (m.get("after_boot") != null) {
                try {
                    afterBoot = Quantity.parseDuration(m.get("after_boot").toString());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ".after_boot must be a duration such as 5m, not '" + m.get("after_boot") + "'");
                }
            }
            String message = m.get("message") == null ? "kernel log matched /" + regex + "/" : m.get("message").toString();
            String name = m.get("name") != null ? m.get("name").toString() : m.get("message") != null ? message : regex.toString();
            if (name.equals(RESERVED)) {
                throw new IllegalArgumentException(where + ".name '" + RESERVED + "' is taken by the log reading itself");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException(where + ": another pattern is already named '" + name + "' (give each a distinct name)");
            }
            out.add(new LogPattern(name, pattern, severity, message, afterBoot));
        }
        return out;
    }
}
