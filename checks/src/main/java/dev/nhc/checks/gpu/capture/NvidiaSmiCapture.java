package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.capture.ShellPrompt;
import dev.nhc.checks.gpu.GpuData;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Reads whatever nvidia-smi printed that an admin captured, telling the forms apart by their
 * content: {@code nvidia-smi -q} (with or without its header, whole, a {@code -d} subset, cut off
 * or a part of one GPU), the summary table of plain {@code nvidia-smi}, {@code --query-gpu} CSV,
 * {@code nvlink --status}, or only nvidia-smi's error lines ("No devices were found", "Unable to
 * determine the device handle for GPU…"). Text that is none of these is read as nothing: every
 * kind of GPU data is then a gap, so the GPU checks are UNKNOWN with the reason, never a pass.
 */
public final class NvidiaSmiCapture {

    private NvidiaSmiCapture() {
    }

    /** Reads the capture through {@link CaptureFile} (bounded, text only: {@link CaptureFile.Refused} otherwise), then parses it. */
    public static GpuCapture read(Path file) throws IOException {
        return parse(file.toString(), CaptureFile.readText(file));
    }

    /** @param source names the capture in messages (its file name) */
    public static GpuCapture parse(String source, String text) {
        String[] lines = text.replace("\r\n", "\n").split("\n", -1);
        int first = first(lines);
        if (first == lines.length) {
            return GpuCapture.unreadable(source, source + " is empty");
        }
        Form form = form(lines, first);
        if (form == null) {
            return GpuCapture.unreadable(source, "line " + (first + 1) + " of " + source + ": expected nvidia-smi output ('==============NVSMI"
                    + " LOG==============' or a GPU block of nvidia-smi -q, nvidia-smi's table, a --query-gpu CSV header, 'GPU 0: <name> (UUID: ...)'"
                    + " of nvlink --status, or one of its error lines), found '" + SmiQValues.shorten(lines[first].strip()) + "'");
        }
        return switch (form) {
            case ERRORS -> errorsOnly(source, java.util.Arrays.copyOfRange(lines, first, lines.length));
            case QUERY -> NvidiaSmiQParser.parse(source, lines, first);
            case NVLINK -> NvlinkStatusParser.parse(source, lines, first);
            case TABLE -> NvidiaSmiTableParser.parse(source, lines);
            case CSV -> QueryGpuCsvParser.parse(source, lines, first);
        };
    }

    /** Whether these lines are output of nvidia-smi this class reads. */
    public static boolean recognises(String[] lines) {
        int first = first(lines);
        return first < lines.length && form(lines, first) != null;
    }

    /** The first line of the output: blank lines and the pasted command line above it ({@code $ nvidia-smi -q}) are not. */
    private static int first(String[] lines) {
        int first = 0;
        while (first < lines.length && (lines[first].isBlank() || ShellPrompt.isCommand(lines[first]))) {
            first++;
        }
        return first;
    }

    /** The forms of nvidia-smi output, told apart by their first line (the table by its banner). */
    private enum Form { ERRORS, QUERY, NVLINK, TABLE, CSV }

    private static Form form(String[] lines, int first) {
        if (NvidiaSmiErrors.onlyErrors(java.util.Arrays.copyOfRange(lines, first, lines.length))) {
            return Form.ERRORS;
        }
        if (NvidiaSmiQParser.looksLike(lines[first])) {
            return Form.QUERY;
        }
        if (NvlinkStatusParser.GPU.matcher(lines[first].strip()).matches()) {
            return Form.NVLINK;
        }
        if (NvidiaSmiTableParser.looksLike(lines)) {
            return Form.TABLE;
        }
        return QueryGpuCsvParser.looksLike(lines[first]) ? Form.CSV : null;
    }

    /** What nvidia-smi printed when it printed nothing but errors: GPUs it could not open, no driver, no devices. */
    static GpuCapture errorsOnly(String source, String[] lines) {
        List<CapturedGpu> gpus = new ArrayList<>();
        List<GpuCapture.Gap> gaps = new ArrayList<>();
        Set<GpuData> provides = EnumSet.noneOf(GpuData.class);
        String unavailable = null;
        Integer count = null;
        int slot = 0;
        for (String l : lines) {
            NvidiaSmiErrors.Line e = l.isBlank() ? null : NvidiaSmiErrors.recognise(l);
            if (e == null) {
                continue;
            }
            switch (e.meaning()) {
                case LOST_GPU -> {
                    // nvidia-smi names the GPU by its address only: its index is not known.
                    gpus.add(CapturedGpu.lost(-1 - slot++, e));
                    provides.addAll(GpuCapture.ALL);
                }
                case UNREADABLE_GPU -> gaps.add(new GpuCapture.Gap(-1 - slot++, e.pciBusId(), GpuCapture.ALL, e.text()));
                case NVML_UNAVAILABLE -> {
                    unavailable = unavailable == null ? e.text() : unavailable;
                    provides.addAll(GpuCapture.ALL);
                }
                case NO_DEVICES -> {
                    provides.add(GpuData.INVENTORY);
                    count = 0;
                }
                case DETAIL -> {
                    // belongs to the line before
                }
            }
        }
        return new GpuCapture(source, null, gpus, provides, gaps, unavailable, count);
    }
}
