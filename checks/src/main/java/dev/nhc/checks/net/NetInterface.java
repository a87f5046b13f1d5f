package dev.nhc.checks.net;

/**
 * One network interface as {@code /sys/class/net/NAME} shows it (the kernel's
 * Documentation/ABI/testing/sysfs-class-net): {@code operstate} (RFC 2863: up, down, dormant,
 * lowerlayerdown, notpresent, testing, unknown), the IFF_UP bit of {@code flags}, {@code carrier},
 * {@code speed} in Mb/s, {@code mtu} and the ARPHRD link {@code type}.
 *
 * @param speedMbps null when the driver reports none (-1, or EINVAL while the link is down)
 * @param carrier   null when it cannot be read (the interface is administratively down)
 * @param problem   why the interface could not be read, null when it was
 */
public record NetInterface(String name, String operstate, boolean adminUp, Boolean carrier, Long speedMbps, Long mtu, Long type,
                           String problem) {

    static NetInterface unreadable(String name, String why) {
        return new NetInterface(name, null, false, null, null, null, null, why);
    }

    /**
     * Up as ibdev2netdev and ip(8) show it: operstate "up"; or "unknown" (drivers that do not track
     * the operational state, such as loopback and many virtual devices) while the interface is
     * administratively up and, where the driver tells, has carrier.
     */
    public boolean up() {
        if ("up".equals(operstate)) {
            return true;
        }
        return "unknown".equals(operstate) && adminUp && !Boolean.FALSE.equals(carrier);
    }

    public boolean readable() {
        return problem == null;
    }
}
