package dev.nhc.checks.net;

import java.util.Map;

/**
 * One InfiniBand or RoCE port as a source read it: sysfs ({@code /sys/class/infiniband/DEV/ports/N})
 * or a captured {@code ibstat}. States are the InfiniBand names sysfs uses: {@code state} DOWN, INIT,
 * ARMED, ACTIVE or ACTIVE_DEFER; {@code physState} Sleep, Polling, Disabled, PortConfigurationTraining,
 * LinkUp, LinkErrorRecovery or PhyTest.
 *
 * @param port      the port number (0 is a switch's management port), {@link #NO_PORT} when none could be listed
 * @param rateGbps  the data rate in Gb/s (active width × active speed), null when not read
 * @param linkSpeed how the rate is made up, e.g. "4X NDR", null when not known
 * @param netdev    the network device behind a RoCE port (e.g. "enp27s0f0np0"), null for InfiniBand
 * @param counters  the port's error counters by their sysfs names; empty when the source has none (ibstat)
 * @param problem   why the port could not be read, null when it was
 */
public record IbPort(String device, int port, String state, String physState, Double rateGbps, String linkSpeed,
                     String linkLayer, String netdev, Map<String, Long> counters, String problem) {

    public static final String ACTIVE = "ACTIVE";
    public static final String LINK_UP = "LinkUp";
    /** The port number of a device whose ports could not be listed at all. */
    public static final int NO_PORT = -1;

    public IbPort {
        counters = counters == null ? Map.of() : Map.copyOf(counters);
    }

    /** A port that is there but could not be read. */
    public static IbPort unreadable(String device, int port, String why) {
        return new IbPort(device, port, null, null, null, null, null, null, Map.of(), why);
    }

    /** "mlx5_0/1": the port's id in findings, state and metrics; the device alone for {@link #NO_PORT}. */
    public String id() {
        return port == NO_PORT ? device : device + "/" + port;
    }

    public boolean readable() {
        return problem == null;
    }

    public boolean active() {
        return ACTIVE.equals(state);
    }

    public boolean infiniband() {
        return linkLayer != null && linkLayer.equalsIgnoreCase("InfiniBand");
    }

    public boolean ethernet() {
        return linkLayer != null && linkLayer.equalsIgnoreCase("Ethernet");
    }
}
