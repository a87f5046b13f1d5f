package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogLine;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.checks.kernel.RecordText;

import java.util.function.Consumer;
import java.util.regex.Matcher;

/**
 * Turns consecutive kernel log lines into XID events. Most events are one line ({@link XidEvent#parse});
 * the driver's "The NVIDIA GPU 0000:5d:00.0 … fallen off the bus and is not responding to
 * commands" message is one record printed over three lines, which a dmesg or journal text splits
 * (its continuation lines carry no timestamp, only an indent). This remembers the GPU named by the
 * first line for the next few lines, so the message is XID 79 however it was written down; the
 * first line must start a kernel record, and the third is taken only as the driver writes it,
 * from the start of its own line.
 */
final class XidLines implements KernelLogReader.Sink {
    /** The record's own lines: the GPU, its PCI ID, then "fallen off the bus". */
    private static final int CONTINUATION_LINES = 3;

    private final Consumer<XidEvent> sink;
    private final Runnable earlierBoot;
    private String pendingPci;
    private String pendingWhen;
    private int linesLeft;

    /** {@code earlierBoot}: the events handed so far were an earlier boot's ({@link KernelLogReader.Sink#earlierBoot}). */
    XidLines(Consumer<XidEvent> sink, Runnable earlierBoot) {
        this.sink = sink;
        this.earlierBoot = earlierBoot;
    }

    @Override
    public void earlierBoot() {
        pendingPci = null;
        earlierBoot.run();
    }

    @Override
    public void line(KernelLogLine line) {
        var event = XidEvent.parse(line);
        if (event.isPresent()) {
            pendingPci = null;
            sink.accept(event.get());
            return;
        }
        String msg = line.message();
        if (pendingPci != null && line.startsRecord() && !msg.startsWith("NVRM: ")) {
            pendingPci = null; // another record came between: a continuation line after it is that record's
        }
        if (pendingPci != null) {
            if (msg.startsWith(XidEvent.FALLEN_OFF_LINE)) {
                sink.accept(XidEvent.fallenOffTheBus(pendingPci, pendingWhen));
                pendingPci = null;
                return;
            }
            if (--linesLeft == 0) {
                pendingPci = null;
            }
        }
        if (line.startsRecord() && msg.startsWith("NVRM: The NVIDIA GPU")) {
            Matcher m = RecordText.at(XidEvent.THE_NVIDIA_GPU, line);
            if (m != null) {
                pendingPci = m.group(1);
                pendingWhen = line.when();
                linesLeft = CONTINUATION_LINES;
            }
        }
    }
}
