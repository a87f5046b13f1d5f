package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.PciBusId;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines nvidia-smi prints instead of data, and what each means for the node. nvidia-smi is a
 * front end to NVML, so each is an NVML answer nhc also gets live: a GPU whose handle cannot be
 * had is lost (nvmlDeviceGetHandleByIndex failing with GPU_IS_LOST, RESET_REQUIRED or UNKNOWN —
 * the last is what a GPU that fell off the bus answers), "couldn't communicate with the NVIDIA
 * driver" is nvmlInit failing with DRIVER_NOT_LOADED, "No devices were found" a count of zero.
 * Admins paste these alone ({@code nvidia-smi} prints nothing else) or inside {@code -q} output.
 */
final class NvidiaSmiErrors {

    /** What an error line says about the node. */
    enum Meaning {
        /** One GPU is gone until a reset or a reboot: {@link Line#pciBusId()} names it. */
        LOST_GPU,
        /** One GPU could not be read for another reason (permissions): nothing is known about it. */
        UNREADABLE_GPU,
        /** NVML cannot be used at all: no GPU of the node can be read. */
        NVML_UNAVAILABLE,
        /** NVML works and sees no GPU. */
        NO_DEVICES,
        /** A line that belongs to another error line (the library version after a mismatch). */
        DETAIL
    }

    /** One recognised line: its meaning, the GPU it names (or null), and nhc's words for it. */
    record Line(Meaning meaning, String pciBusId, String text) {
    }

    private static final Pattern HANDLE = Pattern.compile(
            "^Unable to determine the device handle for (?:GPU|gpu) ?([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}(?:\\.[0-7])?)\\s*:\\s*(.*)$");
    private static final Pattern INIT = Pattern.compile("^Failed to initialize NVML: (.+)$");

    private NvidiaSmiErrors() {
    }

    /** The line's meaning, or null when it is not one of nvidia-smi's error lines. */
    static Line recognise(String line) {
        String s = line.strip();
        Matcher h = HANDLE.matcher(s);
        if (h.matches()) {
            String pci = PciBusId.normalize(h.group(1));
            String why = h.group(2).strip();
            String w = why.toLowerCase(Locale.ROOT);
            boolean lost = w.startsWith("unknown error") || w.contains("lost") || w.contains("reset") || w.contains("fallen off");
            return new Line(lost ? Meaning.LOST_GPU : Meaning.UNREADABLE_GPU, pci,
                    (lost ? "nvidia-smi cannot open the GPU at " + pci + ": '" : "nvidia-smi could not read the GPU at " + pci + ": '")
                            + s + "'" + (lost ? " (NVML cannot reach it: fallen off the bus or needs a reset; reboot the node)" : ""));
        }
        // "couldn't" also as pasted from a page that curled the apostrophe
        if (s.startsWith("NVIDIA-SMI has failed because it couldn") && s.contains("communicate with the NVIDIA driver")) {
            return new Line(Meaning.NVML_UNAVAILABLE, null, "the NVIDIA driver is not loaded (nvidia-smi: '" + s
                    + "'): check that the nvidia kernel module is loaded (lsmod | grep nvidia) and dmesg for NVRM errors");
        }
        if (s.startsWith("NVIDIA-SMI couldn't find libnvidia-ml.so library")) {
            return new Line(Meaning.NVML_UNAVAILABLE, null, "NVML is not installed (nvidia-smi: '" + s + "'): install the NVIDIA driver");
        }
        Matcher i = INIT.matcher(s);
        if (i.matches()) {
            String why = i.group(1).strip();
            String words = why.toLowerCase(Locale.ROOT).contains("version mismatch")
                    ? "the NVML library and the loaded NVIDIA kernel module are different versions (nvidia-smi: '" + s
                            + "'): the driver was upgraded without reloading the module; reboot the node"
                    : "NVML failed to initialise (nvidia-smi: '" + s + "')";
            return new Line(Meaning.NVML_UNAVAILABLE, null, words);
        }
        if (s.equals("No devices were found")) {
            return new Line(Meaning.NO_DEVICES, null, "nvidia-smi: 'No devices were found': the driver is loaded and sees no GPU");
        }
        if (s.startsWith("NVML library version:") || s.startsWith("Please also try adding directory that contains libnvidia-ml.so")
                || s.startsWith("Make sure that the latest NVIDIA driver is installed and running")) {
            return new Line(Meaning.DETAIL, null, s);
        }
        return null;
    }

    /** Whether every line with text is one of nvidia-smi's error lines (and there is one): output that holds nothing else. */
    static boolean onlyErrors(String[] lines) {
        boolean any = false;
        for (String l : lines) {
            if (l.isBlank()) {
                continue;
            }
            Line e = recognise(l);
            if (e == null) {
                return false;
            }
            any |= e.meaning() != Meaning.DETAIL;
        }
        return any;
    }
}
