package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogLine;

import java.util.function.Consumer;
import java.util.regex.Matcher;

/**
 * Turns consecutive kernel log lines into XID events. Most events are one line ({@link XidEvent#parse});
 * the driver's "The NVIDIA GPU 0000:5d:00.0 … fallen off the bus and is not responding to
 * commands" message is one record printed over three lines, which a dmesg or journal text splits
 * (its continuation lines carry no timestamp). This remembers the GPU named by the first line for
 * the next few lines, so the message is XID 79 however it was written down.
 */
final class XidLines implements Consumer<KernelLogLine> {
    /** The record's own lines: the GPU, its PCI ID, then "fallen off the bus". */
    private static final int CONTINUATION_LINES = 3;

    private final Consumer<XidEvent> sink;
    private String pendingPci;
    private String pendingWhen;
    private int linesLeft;

    XidLines(Consumer<XidEvent> sink) {
        this.sink = sink;
    }

    @Override
    public void accept(KernelLogLine line) {
        var event = XidEvent.parse(line);
        if (event.isPresent()) {
            pendingPci = null;
            sink.accept(event.get());
            return;
        }
        String msg = line.message();
        if (pendingPci != null) {
            if (msg.contains(XidEvent.FALLEN_OFF)) {
                sink.accept(XidEvent.fallenOffTheBus(pendingPci, pendingWhen));
                pendingPci = null;
                return;
            }
            if (--linesLeft == 0) {
                pendingPci = null;
            }
        }
        if (msg.indexOf("NVRM: The NVIDIA GPU") >= 0) {
            Matcher m = XidEvent.THE_NVIDIA_GPU.matcher(msg);
            if (m.find()) {
                pendingPci = m.group(1);
                pendingWhen = line.when();
                linesLeft = CONTINUATION_LINES;
            }
        }
    }
}
