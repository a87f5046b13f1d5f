package dev.nhc.checks.net;

import java.io.IOException;
import java.util.List;

/**
 * Where {@code ib.ports} reads its ports: the live sysfs tree ({@link SysfsIbPorts}), or in a replay
 * an {@code ibstat} capture ({@link IbstatCapture}), offered through {@code ProbeContext#service}.
 */
public interface IbPortsSource {

    /** Every port the source holds, devices in natural order ("mlx5_2" before "mlx5_10"), then by port number. */
    List<IbPort> ports() throws IOException;

    /** Whether the ports carry error counters (ibstat prints none: no rates, no flap rules in a replay). */
    boolean hasCounters();

    /**
     * Whether the source is cut short (a captured ibstat that ends inside a port, or shows devices
     * without their ports): ports missing from it are not known to be missing from the node, so
     * counts are not judged and each port shown is judged by itself.
     */
    default boolean partial() {
        return false;
    }

    /** What the source holds that could not be read as a whole (a captured line that is not ibstat's), each with its place. */
    default List<String> problems() {
        return List.of();
    }
}
