package dev.nhc.checks.host;

import dev.nhc.model.Remedy;
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
 *
 * <p>The NVIDIA driver's faults that carry no XID number, and PCIe errors of GPUs and NICs (issue 18
 * item 2), are kernel.log defaults too, not gpu.xid's: most of these lines name no GPU nhc could
 * map (the driver's "GPU6" is its own instance number, not NVML's index), and a GPU that failed to
 * initialise has no NVML index at all. gpu.xid keeps what the driver numbers, and "GPU has fallen
 * off the bus" (XID 79). Each of these patterns matches from the start of the kernel's message (the
 * driver's own prefix), has its remedy, and is documented in docs/DESIGN.md with its source. A
 * pattern with {@code pci_class} counts a line only when the device at the address it names (its
 * {@code pci} group) is of one of those PCI classes ({@link PciClass}).
 *
 * <p>Uncorrectable memory errors fail and latch (remedy hardware): EDAC's "EDAC MC3: 1 UE …"
 * ({@code edac_ue_error}, drivers/edac/edac_mc.c, for every EDAC driver and ghes_edac), and the
 * kernel's "Memory failure: 0x…: …" when it takes a poisoned page out of use (mm/memory-failure.c:
 * the one record every platform prints, EDAC driver or not). A firmware-first "{1}[Hardware
 * Error]: event severity: recoverable" (drivers/acpi/apei/ghes.c, cper.c) warns: its record does not
 * say which device (memory, PCIe, processor), and a memory one also gets the records above.
 * Corrected errors (EDAC "CE", GHES "corrected") are not judged: ECC corrected them, the kernel's
 * CEC and rasdaemon take pages with repeated ones offline, and a rate would need a counter this
 * probe does not keep. A GHES fatal error panics the kernel ("Fatal hardware error!"), so no live log
 * holds it. "VFS: file-max limit N reached" (fs/file_table.c) warns: every open fails until a
 * process frees handles, most often one that leaks them.
 */
final class KernelLogPatterns {
    static final String FAIL = "fail";
    static final String WARN = "warn";
    private static final List<String> KEYS = List.of("regex", "severity", "message", "name", "after_boot", "remedy", "pci_class");
    /** The name of the log reading's own entity, which no pattern may take. */
    static final String RESERVED = dev.nhc.checks.kernel.KernelLogSpec.LOG_ENTITY.id();

    /**
     * One pattern: lines matching {@code regex}, after {@code afterBoot} (null: any time), count for
     * the entity {@code name}; {@code remedy} travels with its finding; with {@code pciClasses} (hex
     * prefixes of the PCI class code, "03" display, "02" network, "12" accelerator) only lines whose
     * {@code pci} group names a device of such a class count.
     */
    record LogPattern(String name, Pattern regex, String severity, String message, Duration afterBoot, Remedy remedy,
                      List<String> pciClasses) {
        LogPattern {
            pciClasses = List.copyOf(pciClasses);
        }

        boolean fails() {
            return FAIL.equals(severity);
        }
    }

    /** Optional "^", inline flags and group openings, then any-character atom with a quantifier that lets it run on. */
    private static final Pattern LEADING_WILDCARD = Pattern.compile(
            "\\^?(?:\\(\\?[a-zA-Z]*[:)]|\\()*((?:\\.|\\\\[SsWwDdHhVvNR]|\\\\p\\{\\w+\\}|\\[\\^?\\]?[^\\]]*\\])(?:[*+]|\\{\\d*,\\d*\\}|\\{\\d+\\})\\??)");

    private static final String NIC_DRIVERS = "(?:mlx5_core|mlx4_core|mlx4_en|bnxt_en|ice|i40e|ixgbe|igb|qede|qed|cxgb4|nfp|ionic|idpf|ena|efa)";
    /** A PCI address as the kernel prints it: 0000:3b:00.0. */
    private static final String PCI_ADDRESS = "[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]";
    /** The NVIDIA driver's prefix: "NVRM: ", its instance "GPU6 " (newer drivers) and the function, or a device "GPU 0000:3b:00.0: ". */
    private static final String NVRM = "^NVRM: (?:GPU\\d+ )?(?:GPU " + PCI_ADDRESS + ": |\\w+: )?";
    /** GPUs (display and 3D controllers), NICs (network, InfiniBand) and other accelerators: the devices a PCIe error takes a node out for. */
    static final List<String> GPU_NIC_CLASSES = List.of("03", "02", "12");
    /**
     * An uncorrectable PCIe error of {@code severity} (Linux drivers/pci/pcie/aer.c), with the device's
     * address in group {@code pci}: the root port's line naming the error's source (older kernels
     * "AER: Uncorrected (Fatal) error received: ADDR", newer "AER: Uncorrectable (Fatal) error message
     * received from ADDR"), or the device's own line ("nvidia ADDR: AER: PCIe Bus Error:
     * severity=Uncorrected (Fatal), …", and {@code deviceAlso} such as "can't recover").
     */
    private static String aer(String severity, String deviceAlso) {
        return "^(?:pcieport " + PCI_ADDRESS + ": AER: (?:Multiple )?Uncorrect(?:ed|able) \\(" + severity
                + "\\) error (?:message )?received(?::| from) |(?!pcieport )\\S+ (?=" + PCI_ADDRESS
                + ": (?:AER: )?(?:PCIe Bus Error: severity=Uncorrect(?:ed|able) \\(" + severity + "\\)" + deviceAlso + ")))(?<pci>"
                + PCI_ADDRESS + ")";
    }

    /** The host, NIC and NVIDIA defaults, then amdgpu's (their own list: {@link AmdgpuLogPatterns}). */
    // Each default is written from the start of the record's text, as the kernel prints it.
    static final List<LogPattern> DEFAULTS = concat(List.of(
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
                    FAIL, "a Mellanox/NVIDIA NIC (mlx5) reported a fatal firmware or hardware error", null),
            pattern("NIC slot power insufficient", "^mlx5_core " + PCI_ADDRESS + ": \\w+:\\d+:\\(pid \\d+\\): Detected insufficient power on the PCIe slot",
                    WARN, "a Mellanox/NVIDIA NIC (mlx5) draws more power than its PCIe slot provides", null, Remedy.HARDWARE, List.of()),
            pattern("NIC module overheated", "^mlx5_core(?: " + PCI_ADDRESS + ")?: (?:\\w+:\\d+:\\(pid \\d+\\): )?Port module event\\[error\\]: .*High Temperature",
                    WARN, "a Mellanox/NVIDIA NIC's cable or transceiver module is too hot", null, Remedy.HARDWARE, List.of()),
            pattern("GPU init failed", NVRM + "RmInitAdapter failed!", FAIL,
                    "the NVIDIA driver could not initialise a GPU (RmInitAdapter failed): it is not usable", null, Remedy.REBOOT, List.of()),
            pattern("GPU needs reset", NVRM + "(?:.*\\[NV_ERR_RESET_REQUIRED\\]|\\(the GPU (?:is likely|may be) in a bad state and may need to be reset\\))",
                    FAIL, "the NVIDIA driver says a GPU needs a reset", null, Remedy.RESET_GPU, List.of()),
            pattern("GPU lost", NVRM + ".*\\[NV_ERR_GPU_IS_LOST\\]", FAIL,
                    "the NVIDIA driver lost a GPU from the bus (NV_ERR_GPU_IS_LOST)", null, Remedy.REBOOT, List.of()),
            pattern("GSP heartbeat lost", NVRM + "(?:GSP RM heartbeat timed out|LibOS heartbeat timed out|Heartbeat timed out,"
                            + "|=+ (?:GSP core unresponsive|GSP-RM unresponsive) =+)",
                    WARN, "a GPU's GSP firmware stopped answering for a while (the driver makes it XID 119 when it gives up)", null,
                    Remedy.RESET_GPU, List.of()),
            pattern("PCIe fatal error on a GPU or NIC", aer("Fatal", "|can't recover|device has no AER-aware driver"),
                    FAIL, "an uncorrectable fatal PCIe error (AER) on a GPU's or NIC's link, or one the kernel could not recover", null,
                    Remedy.REBOOT, GPU_NIC_CLASSES),
            pattern("PCIe uncorrectable error on a GPU or NIC", aer("Non-Fatal", ""),
                    WARN, "an uncorrectable non-fatal PCIe error (AER) on a GPU's or NIC's link", null, Remedy.HARDWARE, GPU_NIC_CLASSES),
            pattern("memory uncorrectable error", "^EDAC MC\\d+: (?:\\d+ )?UE ", FAIL,
                    "an uncorrectable memory (ECC) error reported by EDAC: the DIMM it names needs replacing", null, Remedy.HARDWARE, List.of()),
            pattern("memory page poisoned", "^Memory failure: 0x[0-9a-f]+: ", FAIL,
                    "the kernel took a page out of use after an uncorrectable memory error (hardware memory corruption)", null,
                    Remedy.HARDWARE, List.of()),
            pattern("uncorrected hardware error (APEI)", "^\\{\\d+\\}\\[Hardware Error\\]: event severity: recoverable", WARN,
                    "the firmware reported an uncorrected hardware error the kernel recovered from (APEI/GHES)", null, Remedy.HARDWARE,
                    List.of()),
            pattern("file handles exhausted", "^VFS: file-max limit \\d+ reached", WARN,
                    "the kernel ran out of file handles (fs.file-max): opening files fails for every process", null, Remedy.RESTART_APP,
                    List.of())), AmdgpuLogPatterns.ALL);

    private static List<LogPattern> concat(List<LogPattern> a, List<LogPattern> b) {
        List<LogPattern> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    private KernelLogPatterns() {
    }

    private static LogPattern pattern(String name, String regex, String severity, String message, Duration afterBoot) {
        return pattern(name, regex, severity, message, afterBoot, Remedy.NONE, List.of());
    }

    private static LogPattern pattern(String name, String regex, String severity, String message, Duration afterBoot, Remedy remedy,
                                      List<String> pciClasses) {
        return new LogPattern(name, Pattern.compile(regex), severity, message, afterBoot, remedy, pciClasses);
    }

    /** A pattern's {@code pci_class:} list of hex class prefixes ("03", "0302", "02"); the regex must then have a {@code pci} group. */
    private static List<String> pciClasses(String where, Object raw, Pattern regex) {
        if (raw == null) {
            return List.of();
        }
        if (!(raw instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException(where + ".pci_class must be a list of hex PCI class prefixes such as [\"03\", \"02\"]");
        }
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            String c = String.valueOf(o).toLowerCase(Locale.ROOT);
            if (!c.matches("[0-9a-f]{2}(?:[0-9a-f]{2}){0,2}")) {
                throw new IllegalArgumentException(where + ".pci_class: '" + o + "' is not a hex PCI class prefix (2, 4 or 6 digits, e.g. 03)");
            }
            out.add(c);
        }
        if (!regex.pattern().contains("(?<pci>")) {
            throw new IllegalArgumentException(where + ": a pattern with pci_class needs a named group (?<pci>…) for the device's address");
        }
        return out;
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
            Remedy remedy = Remedy.NONE;
            if (m.get("remedy") != null) {
                try {
                    remedy = Remedy.parse(m.get("remedy").toString());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ".remedy: " + e.getMessage());
                }
            }
            List<String> classes = pciClasses(where, m.get("pci_class"), pattern);
            String message = m.get("message") == null ? "kernel log matched /" + regex + "/" : m.get("message").toString();
            String name = m.get("name") != null ? m.get("name").toString() : m.get("message") != null ? message : regex.toString();
            if (name.equals(RESERVED)) {
                throw new IllegalArgumentException(where + ".name '" + RESERVED + "' is taken by the log reading itself");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException(where + ": another pattern is already named '" + name + "' (give each a distinct name)");
            }
            out.add(new LogPattern(name, pattern, severity, message, afterBoot, remedy, classes));
        }
        return out;
    }
}
