package dev.nhc.checks.net;

import java.util.List;

/**
 * The ports of a captured {@code ibstat}, for {@code nhc replay --ibstat}: what it printed, judged by
 * the same rules as the live sysfs. ibstat prints no counters, so rates and flap rules do not
 * apply. {@code panics} are the {@code ibpanic:}/{@code ibwarn:} lines it printed: ibstat stops at
 * the first device it cannot read, exits non-zero, and what it printed before still counts.
 * {@code problems} are lines that are not ibstat's, each with its line: what they hide is not known.
 * {@code partial}: the capture is cut short (a port without its state, a device without its ports).
 */
public record IbstatCapture(String source, List<IbPort> ports, List<String> panics, List<String> problems, boolean partial)
        implements IbPortsSource {

    public IbstatCapture {
        ports = List.copyOf(ports);
        panics = List.copyOf(panics);
        problems = List.copyOf(problems);
    }

    @Override
    public List<IbPort> ports() {
        return ports;
    }

    @Override
    public boolean hasCounters() {
        return false;
    }
}
