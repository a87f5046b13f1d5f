package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Where problems in {@code nvidia-smi -q} are recorded: each a {@link GpuCapture.Gap} that names
 * the GPU block and the kind of data being read when it was found, so that a problem in one
 * section leaves only that section of that GPU unread.
 */
final class SmiQGaps implements SmiQTree.Problems {
    private final List<GpuCapture.Gap> gaps;
    private CapturedGpu current;
    private GpuData currentKind;

    SmiQGaps(List<GpuCapture.Gap> gaps) {
        this.gaps = gaps;
    }

    /** Problems from now on are this GPU's, until {@link #leave()}. */
    void enter(CapturedGpu gpu) {
        current = gpu;
        currentKind = null;
    }

    void leave() {
        current = null;
        currentKind = null;
    }

    /** Problems from now on leave this kind of data unread. */
    void section(GpuData kind) {
        currentKind = kind;
    }

    @Override
    public void problem(int line, String what) {
        Set<GpuData> kinds = currentKind == null ? GpuCapture.ALL : EnumSet.of(currentKind);
        String text = (line > 0 ? "line " + line + ": " : "") + what;
        gaps.add(current == null ? new GpuCapture.Gap(null, null, kinds, text)
                : new GpuCapture.Gap(current.index, current.pciBusId, kinds, current.label() + ": " + text));
    }
}
