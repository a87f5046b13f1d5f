package dev.nhc.checks.host;

import dev.nhc.units.Quantity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The patterns {@code kernel.log} counts: its defaults, or a check's {@code patterns:} list.
 * A pattern's {@code severity} is what the probe's default rules read ({@code fail} patterns
 * fail and latch, {@code warn} patterns warn for the run that saw them); a config's own
 * {@code fail:}/{@code warn:} replaces those rules, as for every probe.
 *
 * <p>Every pattern, a default or an admin's, is matched from the start of a kernel record's text
 * (after its source's header: kmsg prefix, dmesg stamp, syslog time, host and {@code kernel:}
 * tag), never inside it, and never in a record that starts with a task's name
 * ({@link dev.nhc.checks.kernel.RecordText}): the kernel copies text users choose (a program's
 * name and file) into its own records, so "the line contains X" proves nothing. So a pattern
 * names what the kernel prints first — the subsystem or driver and its device
 * ({@code EXT4-fs \(\S+\): }, {@code mlx5_core \S+: }) — and a pattern that begins with a
 * wildcard ({@code .*}, {@code .+}, {@code \S*}, {@code [^x]+} …) is refused: it would find the
 * text anywhere again. Each pattern runs with a bound on its work per line ({@link dev.nhc.text.BoundedRegex}).
 *
 * <p>The NIC and link defaults come from what the kernel and its NIC drivers print (Linux
 * {@code drivers/pci/pci.c} {@code __pcie_print_link_status}, mlx5 {@code health.c} and
 * {@code en_main.c}, the Intel and Broadcom drivers' link messages, bonding):
 * <ul>
 *   <li>NIC PCIe link degraded (warn): a NIC driver's "63.008 Gb/s available PCIe bandwidth,
 *       limited by 8.0 GT/s PCIe x8 link at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s
 *       PCIe x16 link)" — the card trained narrower or slower than it can. Only NIC drivers'
 *       lines: the PCI core prints the same for every device at enumeration.</li>
 *   <li>NIC link down (warn, not in the first 5 minutes after boot, while interfaces come up):
 *       mlx5's "Link down", Intel and Broadcom's "NIC Link is Down", bonding's "link status
 *       definitely down" — a link flap. A link that stays down is for a port check.
 *       (systemd-networkd's "Lost carrier" is not the kernel's: a syslog line of another tag is
 *       never judged.)</li>
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

    /** Optional "^", inline flags and group openings, then any-character atom with a quantifier that lets it run on. */
    private static final Pattern LEADING_WILDCARD = Pattern.compile(
            "\\^?(?:\\(\\?[a-zA-Z]*[:)]|\\()*((?:\\.|\\\\[SsWwDdHhVvNR]|\\\\p\\{\\w+\\}|\\[\\^?\\]?[^\\]]*\\])(?:[*+]|\\{\\d*,\\d*\\}|\\{\\d+\\})\\??)");

    private static final String NIC_DRIVERS = "(?:mlx5_core|mlx4_core|mlx4_en|bnxt_en|ice|i40e|ixgbe|igb|qede|qed|cxgb4|nfp|ionic|idpf|ena|efa)";

    // Each default is written from the start of the record's text, as the kernel prints it.
    static final List<LogPattern> DEFAULTS = List.of(
            pattern("filesystem read-only", "EXT[234]-fs \\(\\S+\\): (?:error: )?[Rr]emounting filesystem read-only",
                    FAIL, "a filesystem was remounted read-only", null),
            pattern("block I/O error", "Buffer I/O error on dev ", FAIL, "block device I/O errors", null),
            pattern("soft lockup", "(?:(?:NMI )?watchdog: )?BUG: soft lockup - CPU#\\d+ stuck", WARN, "a CPU soft lockup", null),
            pattern("hung task", "INFO: task .+:\\d+ blocked for more than \\d+ seconds", WARN, "tasks hung in the kernel", null),
            pattern("out of memory", "Out of memory: |oom-kill:constraint=", WARN, "the OOM killer ran", null),
            pattern("machine check", "(?:mce: )?(?:\\[Hardware Error\\]: )?Machine check events logged|mce: \\[Hardware Error\\]: ",
                    WARN, "machine check (hardware) errors", null),
            pattern("filesystem error", "EXT4-fs error \\(device |XFS \\(\\S+\\): Corruption", WARN, "filesystem errors", null),
            pattern("NIC PCIe link degraded", NIC_DRIVERS + " [0-9a-fA-F:.]+: [\\d.]+ Gb/s available PCIe bandwidth, limited by .*\\(capable of ",
                    WARN, "a NIC's PCIe link trained below its capability", null),
            pattern("NIC link down", NIC_DRIVERS + " \\S+ \\S+: (?:Link down|NIC Link is Down)"
                            + "|\\S+: \\(slave \\S+\\): link status definitely down|bonding: \\S+: link status definitely down",
                    WARN, "a network link went down", Duration.ofMinutes(5)),
            pattern("NIC fatal error", "mlx5_core \\S+: .*(?:device's health compromised|Fatal error \\d+ detected|firmware internal error"
                            + "|unrecoverable hardware error|health recovery failed|fw_fatal)",
                    FAIL, "a Mellanox/NVIDIA NIC (mlx5) reported a fatal firmware or hardware error", null));

    private KernelLogPatterns() {
    }

    private static LogPattern pattern(String name, String regex, String severity, String message, Duration afterBoot) {
        return new LogPattern(name, Pattern.compile(regex), severity, message, afterBoot);
    }

    /**
     * A wildcard the pattern or one of its top-level alternatives begins with ({@code .*},
     * {@code \S+}, {@code [^:]*} … after {@code ^}, inline flags and group openings), or null.
     */
    static String leadingWildcard(String regex) {
        for (String alternative : topLevelAlternatives(regex)) {
            Matcher m = LEADING_WILDCARD.matcher(alternative);
            if (m.lookingAt()) {
                return m.group(1);
            }
        }
        return null;
    }

    /** The regex split at each '|' outside groups, character classes and escapes. */
    private static List<String> topLevelAlternatives(String regex) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i++;
            } else if (inClass) {
                inClass = c != ']';
            } else if (c == '[') {
                inClass = true;
                if (i + 1 < regex.length() && regex.charAt(i + 1) == ']') {
                    i++; // "[]…]": a ']' first in a class is a member
                }
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == '|' && depth == 0) {
                out.add(regex.substring(start, i));
                start = i + 1;
            }
        }
        out.add(regex.substring(start));
        return out;
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
            String wildcard = leadingWildcard(regex.toString());
            if (wildcard != null) {
                throw new IllegalArgumentException(where + ".regex begins with the wildcard '" + wildcard + "': patterns are matched "
                        + "from the start of a kernel record's text, and a leading wildcard would find the text inside a record, where "
                        + "users put it (a program's name in a segfault record); begin with what the kernel prints first, "
                        + "e.g. 'EXT4-fs \\(\\S+\\): ' or 'mlx5_core \\S+: '");
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
