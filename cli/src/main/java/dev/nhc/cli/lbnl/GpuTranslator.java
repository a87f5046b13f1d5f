package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The GPU checks sites write: LBNL NHC's own {@code check_nv_healthmon} (lbnl_nv.nhc) and
 * {@code check_nvsmi_healthmon} (csc_nvidia_smi.nhc, shipped with it), and the functions of the
 * public site scripts — Azure's azurehpc-health-checks ({@code customTests/azure_gpu_*.nhc}), Lambda's
 * fork of LBNL NHC ({@code scripts/azure_gpu_*.nhc}, Azure's) and NVIDIA DeepOps
 * ({@code roles/nhc/files/deepops.nhc}). Each becomes nhc's GPU probe for what it checks, with fail
 * rules on what the site's function fails on; where the site's function does more or less than
 * that (a time window, an action on the GPU), the import says so on stderr.
 */
final class GpuTranslator implements FunctionTranslator {
    static final String FAMILY = "gpu";
    private static final String AZURE = "Azure's azurehpc-health-checks";
    private static final String DEEPOPS = "NVIDIA DeepOps' roles/nhc/files/deepops.nhc";
    /** Azure's customTests/azure_gpu_xid.nhc XID_EC. */
    private static final List<Long> AZURE_XIDS = List.of(48L, 56L, 57L, 58L, 62L, 63L, 64L, 65L, 68L, 69L, 73L, 74L, 79L, 80L, 81L, 92L, 119L, 120L);
    /** nhc's gpu.xid fatal defaults that Azure's list leaves out. */
    private static final List<Long> NHC_FATAL_NOT_AZURE = List.of(95L, 140L);

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        Outcome out = switch (function) {
            case "check_nv_healthmon" -> healthmon(ctx);
            case "check_nvsmi_healthmon" -> nvsmi(args, ctx);
            case "check_gpu_count", "check_nv_gpu_count" -> count(function, args);
            case "check_gpu_xid" -> azureXid(args);
            case "check_xid_errors" -> deepopsXid(args);
            case "check_gpu_ecc" -> ecc(args);
            case "check_gpu_clock_throttling" -> throttling(args);
            case "check_nvlink_status" -> nvlink(args);
            case "check_nv_pcie_link_width" -> pcieWidth(args);
            case "check_nv_retired_pages" -> retiredPages(args);
            case "check_nv_dcgmi_diag" -> dcgmDiag(args);
            case "check_gpu_persistence" -> settingOnly("check_gpu_persistence", "gpu-persistence",
                    "turns persistence mode on where it is off (nvidia-smi -i N -pm 1); nhc warns instead");
            case "check_app_gpu_clocks" -> settingOnly("check_app_gpu_clocks", "gpu-app-clocks",
                    "sets the application clocks to their maximum where they are lower (nvidia-smi -ac); nhc does not, and does not warn");
            default -> null;
        };
        if (out != null && ctx.tainted(FAMILY) && (function.equals("check_nv_healthmon") || function.equals("check_nvsmi_healthmon"))) {
            return new CarriedOver("an earlier line sets the tool LBNL NHC runs to a value known only when it runs ("
                    + String.join(", ", ctx.taintedVariables(FAMILY)) + ")");
        }
        return out;
    }

    /** lbnl_nv.nhc: runs $NVIDIA_HEALTHMON $NVIDIA_HEALTHMON_ARGS (nvidia-healthmon -e -v) and fails on a non-zero exit, 127 (not there) included. */
    private static Outcome healthmon(ImportContext ctx) {
        String tool = ctx.tools.getOrDefault("NVIDIA_HEALTHMON", "nvidia-healthmon");
        String toolArgs = ctx.tools.getOrDefault("NVIDIA_HEALTHMON_ARGS", "-e -v");
        List<String> argv = argv(tool, toolArgs);
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(tool.substring(tool.lastIndexOf('/') + 1)), "command").with("command", argv);
        c.note("LBNL NHC's check_nv_healthmon runs " + String.join(" ", argv) + " and fails on any other exit than 0, a missing tool included");
        return Translated.checks(c);
    }

    /**
     * csc_nvidia_smi.nhc: nvidia-smi exits non-zero when NVML cannot start (driver not loaded, library
     * missing, no permission), a GPU fell off the bus (15) or its infoROM is corrupt (14): what
     * gpu.inventory reads through NVML. With other arguments or another tool, the tool itself is run.
     */
    private static Outcome nvsmi(List<String> args, ImportContext ctx) {
        if (!args.isEmpty()) {
            // LBNL NHC 1.4.3 ignores it; VUB's fork (vub-hpc/nhc) reads it as the GPUs expected, 0 skipping the check
            return new CarriedOver("LBNL NHC 1.4.3's check_nvsmi_healthmon takes no argument, and a fork's that reads '" + String.join(" ", args)
                    + "' (VUB's: the GPUs expected, 0 to skip) is not known here; the installed LBNL NHC decides");
        }
        String tool = ctx.tools.getOrDefault("NVIDIA_SMI_HEALTHMON", "nvidia-smi");
        String toolArgs = ctx.tools.getOrDefault("NVIDIA_SMI_HEALTHMON_ARGS", "");
        if (!tool.equals("nvidia-smi") || !toolArgs.isBlank()) {
            List<String> argv = argv(tool, toolArgs);
            return Translated.checks(new NhcCheck(FunctionTranslator.slug(tool.substring(tool.lastIndexOf('/') + 1)), "command").with("command", argv)
                    .note("check_nvsmi_healthmon runs " + String.join(" ", argv) + " and fails on any other exit than 0"));
        }
        NhcCheck c = gpuCheck("nvidia-smi", "gpu.inventory");
        c.failWhen("nvml_available", "false");
        c.differs("check_nvsmi_healthmon fails when nvidia-smi exits non-zero; nhc asks NVML directly, which fails on the same causes "
                + "(driver or library missing, a GPU lost or not answering) and is unknown, so failed here, on an unreadable value such as a corrupt infoROM");
        return Translated.checks(c);
    }

    /** A GPU check that fails, as every nvidia-smi based function does, when a GPU is lost or does not answer. */
    private static NhcCheck gpuCheck(String name, String probe) {
        return new NhcCheck(name, probe).noWarnings().failWhen("lost", "true").failWhen("responding", "false");
    }

    /** Azure's check_gpu_count N and DeepOps' check_nv_gpu_count N: nvidia-smi's GPU list has exactly N lines. */
    private static Outcome count(String function, List<String> args) {
        String n = args.isEmpty() ? "" : args.get(0);
        if (args.size() > 1 && args.get(1).equals("rocm")) {
            return new CarriedOver("AMD GPUs (rocm-smi): nhc reads NVIDIA's NVML");
        }
        if (!n.matches("[0-9]{1,4}")) {
            return new CarriedOver(n.isEmpty() ? function + " without a count fails on every node" : "'" + n + "' is not a GPU count");
        }
        NhcCheck c = gpuCheck("gpu-count", "gpu.inventory").with("count", Long.parseLong(n)).failWhen("gpu_count", "!= " + n);
        c.differs(function + " is " + site(function) + "'s: it counts the lines of nvidia-smi's GPU list, and nhc counts the GPUs NVML reports "
                + "(none when NVML cannot start, as nvidia-smi then lists none)");
        return Translated.checks(c);
    }

    /**
     * Azure's check_gpu_xid [HOURS]: the XIDs of its list (48 56 57 58 62 63 64 65 68 69 73 74 79 80 81 92 119
     * 120) found in its syslog copy within HOURS (2) fail once each.
     */
    private static Outcome azureXid(List<String> args) {
        if (args.size() > 1 || !args.isEmpty() && !args.get(0).matches("[0-9]{1,4}")) {
            return new CarriedOver("check_gpu_xid takes at most a number of hours");
        }
        String hours = args.isEmpty() ? "2" : args.get(0);
        NhcCheck c = new NhcCheck("gpu-xid", "gpu.xid").with("fail", AZURE_XIDS).with("ignore", NHC_FATAL_NOT_AZURE).noWarnings()
                .failWhen("xid_latched", "> 0");
        c.differs("check_gpu_xid is " + AZURE + "'s: it fails on an XID of its list logged in $AZ_NHC_ROOT/syslog within " + hours
                + " h, once per XID; nhc reads the kernel log as it grows and keeps those XIDs failing until reboot or 'nhc clear'");
        return Translated.checks(c);
    }

    /** DeepOps' check_xid_errors: any XID but 94 in the last hour of this boot's journal fails. */
    private static Outcome deepopsXid(List<String> args) {
        if (!args.isEmpty()) {
            return new CarriedOver("check_xid_errors takes no arguments");
        }
        NhcCheck c = new NhcCheck("gpu-xid", "gpu.xid").with("log", "journal").with("ignore", List.of(94L)).noWarnings()
                .failWhen("xid_latched", "> 0").failWhen("xid_warning", "> 0");
        c.differs("check_xid_errors is " + DEEPOPS + "'s: it fails on any XID but 94 in the journal of the last hour; nhc fails on the XIDs "
                + "it knows as faults (the fatal ones until reboot or 'nhc clear', the others in the run that sees them)");
        return Translated.checks(c);
    }

    /**
     * Azure's check_gpu_ecc DRAM_MAX SRAM_MAX (customTests/azure_gpu_ecc.nhc, A100/H100): per GPU, a pending
     * or failed row remap, more than 512 rows remapped for uncorrectable errors, corrected SRAM errors above
     * SRAM_MAX, any uncorrected SRAM error, or DRAM errors above DRAM_MAX (volatile or aggregate) fail.
     */
    private static Outcome ecc(List<String> args) {
        String dram = args.isEmpty() ? "" : args.get(0);
        String sram = args.size() > 1 ? args.get(1) : "";
        if (args.size() != 2 || !dram.matches("[0-9]{1,12}") || !sram.matches("[0-9]{1,12}")) {
            return new CarriedOver("only check_gpu_ecc DRAM_MAX SRAM_MAX (Azure's A100/H100 form) is translated");
        }
        NhcCheck ecc = gpuCheck("gpu-ecc", "gpu.ecc");
        for (String f : List.of("volatile_sram_corrected", "aggregate_sram_corrected")) {
            ecc.failWhen(f, "> " + sram);
        }
        for (String f : List.of("volatile_sram_uncorrected", "aggregate_sram_uncorrected")) {
            ecc.failWhen(f, "> 0");
        }
        for (String f : List.of("volatile_dram_uncorrected", "aggregate_dram_uncorrected", "volatile_dram_corrected", "aggregate_dram_corrected")) {
            ecc.failWhen(f, "> " + dram);
        }
        NhcCheck remap = gpuCheck("gpu-memory-repair", "gpu.memory-repair")
                .failWhen("remap_pending", "true").failWhen("remap_failure", "true").failWhen("remapped_rows_uncorrectable", "> 512");
        ecc.differs("check_gpu_ecc is " + AZURE + "'s (A100/H100 form), read through nvidia-smi; nhc reads the same counters from NVML, "
                + "the row remaps in a second check (gpu-memory-repair)");
        return Translated.checks(ecc, remap);
    }

    /** Azure's check_gpu_clock_throttling only logs a warning per throttled GPU; it never fails. */
    private static Outcome throttling(List<String> args) {
        if (!args.isEmpty()) {
            return new CarriedOver("check_gpu_clock_throttling takes no arguments");
        }
        NhcCheck c = new NhcCheck("gpu-clocks", "gpu.thermal").noFailures().onUnknown("ignore");
        c.differs("check_gpu_clock_throttling is " + AZURE + "'s and only logs throttled GPUs; nhc's check warns on them instead and never fails");
        return Translated.checks(c);
    }

    /** Azure's check_nvlink_status: a GPU with an inactive NVLink fails; no NVLink at all passes. */
    private static Outcome nvlink(List<String> args) {
        if (!args.isEmpty()) {
            return new CarriedOver("check_nvlink_status takes no arguments");
        }
        NhcCheck c = gpuCheck("nvlink", "gpu.nvlink").failWhen("nvlink_inactive", "> 0").failWhen("nvml_available", "false");
        c.differs("check_nvlink_status is " + AZURE + "'s, read through nvidia-smi nvlink; nhc reads the links' states from NVML");
        return Translated.checks(c);
    }

    /** DeepOps' check_nv_pcie_link_width W: every GPU's current PCIe width is W. */
    private static Outcome pcieWidth(List<String> args) {
        if (args.size() != 1 || !args.get(0).matches("[0-9]{1,2}")) {
            return new CarriedOver("check_nv_pcie_link_width takes one link width");
        }
        NhcCheck c = gpuCheck("gpu-pcie-width", "gpu.pcie").failWhen("pcie_width", "!= " + args.get(0)).failWhen("nvml_available", "false");
        c.differs("check_nv_pcie_link_width is " + DEEPOPS + "'s, read through nvidia-smi; nhc reads the current width from NVML");
        return Translated.checks(c);
    }

    /** DeepOps' check_nv_retired_pages: a page retirement pending on any GPU fails. */
    private static Outcome retiredPages(List<String> args) {
        if (!args.isEmpty()) {
            return new CarriedOver("check_nv_retired_pages takes no arguments");
        }
        NhcCheck c = gpuCheck("gpu-retired-pages", "gpu.memory-repair").failWhen("retired_pages_pending", "true");
        c.differs("check_nv_retired_pages is " + DEEPOPS + "'s: it greps nvidia-smi for 'yes' (and passes when nvidia-smi fails); "
                + "nhc reads the pending retirement from NVML and fails when it cannot");
        return Translated.checks(c);
    }

    /** DeepOps' check_nv_dcgmi_diag: dcgmi diag -r 1 printing Error or Fail fails. */
    private static Outcome dcgmDiag(List<String> args) {
        if (!args.isEmpty()) {
            return new CarriedOver("check_nv_dcgmi_diag takes no arguments");
        }
        NhcCheck c = new NhcCheck("dcgm-diag", "dcgm.diag").with("level", 1L).with("skip_when_busy", false).noWarnings()
                .failWhen("failed", "> 0").failWhen("runtime_error", "~ .");
        c.differs("check_nv_dcgmi_diag is " + DEEPOPS + "'s: it fails when dcgmi diag -r 1 prints Error or Fail anywhere; nhc reads the "
                + "diag's JSON and fails on a failed test or a runtime error");
        return Translated.checks(c);
    }

    /**
     * Lambda's Azure functions that change a GPU setting and fail only when nvidia-smi cannot be
     * asked: nhc keeps the failure and leaves the setting alone.
     */
    private static Outcome settingOnly(String function, String name, String action) {
        NhcCheck c = gpuCheck(name, "gpu.inventory").failWhen("nvml_available", "false");
        c.differs(function + " (" + AZURE + ", in Lambda's fork) " + action);
        return Translated.checks(c);
    }

    private static String site(String function) {
        return function.equals("check_nv_gpu_count") ? DEEPOPS : AZURE;
    }

    private static List<String> argv(String tool, String args) {
        List<String> argv = new ArrayList<>();
        argv.add(tool);
        if (!args.isBlank()) {
            argv.addAll(Arrays.asList(args.trim().split("[ \t]+")));
        }
        return argv;
    }
}
