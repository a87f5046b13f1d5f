package dev.nhc.checks.replay;

import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.amd.AmdSmiCaptureParser;
import dev.nhc.checks.gpu.capture.NvidiaSmiCapture;
import dev.nhc.probe.Tags;

import java.util.regex.Pattern;

/**
 * The tools whose captured output {@code nhc replay} and {@code nhc backtest} judge, told apart by
 * what the capture says, not by its name: a ticket's attachment is called {@code out.txt}. Each
 * kind feeds the checks with one tag ({@link #feeds()}).
 */
public enum CaptureKind {
    NVIDIA_SMI("nvidia-smi", Tags.NVML),
    AMD_SMI("amd-smi or rocm-smi", GpuVendor.AMD.tag()),
    DCGMI_DIAG("dcgmi diag", Tags.DCGM),
    DCGMI_HEALTH("dcgmi health", Tags.DCGM),
    IBSTAT("ibstat", Tags.INFINIBAND),
    FABRIC_MANAGER_LOG("fabric manager log", Tags.FABRIC),
    KERNEL_LOG("kernel log", Tags.KERNEL_LOG);

    /** How much of a capture is looked at to tell its kind. */
    public static final int HEAD_BYTES = 64 * 1024;

    private static final Pattern FM_LINE = Pattern.compile(
            "^\\[[A-Z][a-z]{2} \\d{1,2} \\d{4} \\d\\d:\\d\\d:\\d\\d] \\[(INFO|ERROR|WARNING|WARN|FATAL|DEBUG)] \\[tid \\d+]");
    /** A row of dcgmi diag's table: a test's outcome, a DCGM 4 entity's, or a category separator. */
    private static final Pattern DIAG_ROW = Pattern.compile("(?m)^\\|[^|\\n]*\\|\\s*(?:(?:GPU|Switch|CPU)\\d+: )?(?:Pass|Fail|Warn|Skip)(?:\\s+-\\s+(?:GPUs?:|All)|\\s*\\|)"
            + "|(?m)^[|+]-----\\s+(?:Deployment|Integration|Hardware|Stress|Metadata)\\s");
    private static final Pattern IBSTAT_DEVICE = Pattern.compile("^(CA|Switch|Router)(:)? '[^']+'\\s*$");
    /** Kernel log lines as dmesg, journalctl, syslog, /dev/kmsg and pstore write them, or NVIDIA's own lines pasted bare. */
    private static final Pattern KERNEL_LINE = Pattern.compile(
            "^(?:\\[\\s*\\d+\\.\\d+]"                                                // dmesg
                    + "|<\\d>\\[\\s*\\d+\\.\\d+]"                                   // pstore / dmesg -r
                    + "|\\d+,\\d+,\\d+,[^;]*;"                                       // /dev/kmsg
                    + "|kern\\s*:\\s*\\w+\\s*:"                                      // dmesg --decode
                    + "|\\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}]" // dmesg -T
                    + "|\\d{4}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d:\\d\\d\\S*\\s+(?:\\S+\\s+kernel:|NVRM:|nvidia|mlx5|pcieport|kernel:)" // iso
                    + "|[A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\S+ [\\w.@/-]+(?:\\[\\d+])?:"  // syslog, journalctl (any tag: kern.log holds the kernel's)
                    + "|kernel:\\s*\\[\\s*\\d+\\.\\d+]"                              // syslog's message field alone
                    + "|NVRM: |nvidia-nvswitch\\d*: SXid)");

    private final String label;
    private final String feeds;

    CaptureKind(String label, String feeds) {
        this.label = label;
        this.feeds = feeds;
    }

    /** The tool, as reports name the kind. */
    public String label() {
        return label;
    }

    /** The tag of the checks this kind of capture feeds ({@link Tags}). */
    public String feeds() {
        return feeds;
    }

    /**
     * The kind of the capture whose beginning is {@code head}, or null when it is none nhc reads.
     * A kernel log is what is left when the capture is no tool's table, JSON or report and has a
     * line as the kernel logs them.
     */
    public static CaptureKind recognise(String head) {
        String text = head.replace("\r\n", "\n");
        String[] lines = text.split("\n", -1);
        if (isDcgmJson(text)) {
            return text.contains("\"Health Monitor Report\"") || text.contains("\"Overall Health\"") ? DCGMI_HEALTH : DCGMI_DIAG;
        }
        if (text.contains("Health Monitor Report") && text.contains("Overall Health")) {
            return DCGMI_HEALTH;
        }
        if (text.contains("| Diagnostic") || text.contains("Successfully ran diagnostic") || DIAG_ROW.matcher(text).find()) {
            return DCGMI_DIAG;
        }
        if (NvidiaSmiCapture.recognises(lines)) {
            return NVIDIA_SMI;
        }
        if (AmdSmiCaptureParser.kindOf(text) != null) {
            return AMD_SMI;
        }
        int fm = 0;
        int kernel = 0;
        for (String l : lines) {
            if (IBSTAT_DEVICE.matcher(l.strip()).matches()) {
                return IBSTAT;
            }
            if (FM_LINE.matcher(l).find()) {
                fm++;
            } else if (KERNEL_LINE.matcher(l.stripLeading()).find()) {
                kernel++;
            }
        }
        if (fm > 0 && fm >= kernel) {
            return FABRIC_MANAGER_LOG;
        }
        return kernel > 0 ? KERNEL_LOG : null;
    }

    /** JSON from dcgmi: its first line that starts with '{' begins a document with one of dcgmi's keys. */
    private static boolean isDcgmJson(String text) {
        boolean json = false;
        for (String l : text.split("\n")) {
            String s = l.strip();
            if (s.startsWith("{")) {
                json = true;
                break;
            }
            if (s.startsWith("|") || s.startsWith("+")) {
                return false;
            }
        }
        return json && (text.contains("\"DCGM GPU Diagnostic\"") || text.contains("\"DCGM Diagnostic\"") || text.contains("\"iterations\"")
                || text.contains("\"test_categories\"") || text.contains("\"Overall Health\"") || text.contains("\"Health Monitor Report\""));
    }
}
