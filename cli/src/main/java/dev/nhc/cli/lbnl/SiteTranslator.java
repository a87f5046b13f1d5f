package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;

/**
 * Host and network functions of the public site scripts that are not LBNL NHC's: NVIDIA DeepOps'
 * {@code check_ipoib_up}, {@code check_ib_link_ber} and {@code check_num_numa_nodes}
 * (roles/nhc/files/deepops.nhc) and Azure's {@code check_ib_link_flapping}
 * (customTests/azure_ib_link_flapping.nhc) and {@code check_nvme_count} (customTests/azure_nvme_count.nhc).
 * Each becomes the nhc probe for what it checks; the
 * import says on stderr whose meaning it kept and where nhc's differs.
 */
final class SiteTranslator implements FunctionTranslator {
    private static final String DEEPOPS = "NVIDIA DeepOps' roles/nhc/files/deepops.nhc";

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        return switch (function) {
            case "check_ipoib_up" -> ipoibUp(args);
            case "check_ib_link_ber" -> linkBer(args);
            case "check_ib_link_flapping" -> flapping(args);
            case "check_num_numa_nodes" -> numa(args);
            case "check_nvme_count" -> nvmeCount(args);
            case "check_num_nvme_devices" -> new CarriedOver(DEEPOPS + " defines check_num_nvme_devs, not check_num_nvme_devices: LBNL NHC "
                    + "fails this line on every node (command not found), and so does the carried-over check; rename it to what was meant");
            default -> null;
        };
    }

    /** ibdev2netdev | grep IF | grep -q Up: the IPoIB interface is there and its operstate up ("(Up)" in ibdev2netdev). */
    private static Outcome ipoibUp(List<String> args) {
        if (args.size() != 1 || !FunctionTranslator.plain(args.get(0))) {
            return new CarriedOver("check_ipoib_up takes one interface name");
        }
        String netdev = args.get(0);
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(netdev) + "-up", "net.interface").with("name", netdev).with("up", true);
        c.differs("check_ipoib_up is " + DEEPOPS + "'s: it looks for '" + netdev + "' anywhere in ibdev2netdev's lines that say Up; "
                + "nhc asks /sys/class/net/" + netdev + " for its operstate, which is what ibdev2netdev shows");
        return Translated.checks(c);
    }

    /**
     * mlxlink -d DEV -c, "Effective Physical BER : 15E-255": the exponent below 9 (a BER above 1e-9) fails; an
     * mlxlink that is missing or prints no such line passes (the shell test errs, which the function takes for a pass).
     */
    private static Outcome linkBer(List<String> args) {
        if (args.size() != 1 || !FunctionTranslator.plain(args.get(0))) {
            return new CarriedOver("check_ib_link_ber takes one device name");
        }
        String dev = args.get(0);
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(dev) + "-ber", "command").with("command", List.of("mlxlink", "-d", dev, "-c"))
                .with("output", "Effective Physical BER[^:\\n]*:[^\\n-]*-0*[0-8][ \\t]*$")
                .noWarnings().failWhen("output_matches", "true").failWhen("timed_out", "true").onUnknown("ignore");
        c.differs("check_ib_link_ber is " + DEEPOPS + "'s: nhc runs the same mlxlink command and fails on the same line (a BER "
                + "exponent below 9), and like it passes when mlxlink is missing or fails");
        return Translated.checks(c);
    }

    /**
     * Azure's check_ib_link_flapping [HOURS [COUNT [LOGS]]]: an IPoIB interface that lost carrier COUNT (5)
     * times within HOURS (24) in syslog fails. nhc counts the port's own link_downed within the window.
     */
    private static Outcome flapping(List<String> args) {
        String hours = args.isEmpty() ? "24" : args.get(0);
        String count = args.size() > 1 ? args.get(1) : "5";
        if (args.size() > 2 || !hours.matches("[0-9]{1,2}") || !count.matches("[0-9]{1,3}")) {
            return new CarriedOver("only check_ib_link_flapping [HOURS [COUNT]] with its syslog is translated");
        }
        if (Integer.parseInt(hours) < 1 || Integer.parseInt(hours) > 24 || Integer.parseInt(count) < 1 || Integer.parseInt(count) > 255) {
            return new CarriedOver("nhc's flap window is 1 to 24 hours and its burst 1 to 255 link-downs");
        }
        NhcCheck c = new NhcCheck("ib-link-flapping", "ib.ports").with("flap_window", hours + "h").with("flap_burst", Long.parseLong(count))
                .noWarnings().failWhen("link_downed_in_window", ">= " + count);
        c.differs("check_ib_link_flapping is Azure's azurehpc-health-checks': it counts 'lost carrier' lines of ib* interfaces in "
                + "$AZ_NHC_ROOT/syslog over the last " + hours + " h; nhc counts each port's link_downed counter over the same window, "
                + "from its first run on (the history before it is not read)");
        return Translated.checks(c);
    }

    /** lscpu | grep "NUMA.*CPU" | wc -l: lscpu lists one "NUMA nodeN CPU(s)" line per node. */
    private static Outcome numa(List<String> args) {
        if (args.size() != 1 || !args.get(0).matches("[0-9]{1,4}")) {
            return new CarriedOver("check_num_numa_nodes takes one count");
        }
        NhcCheck c = new NhcCheck("numa-nodes", "cpu").noWarnings().failWhen("numa_nodes", "!= " + args.get(0));
        c.differs("check_num_numa_nodes is " + DEEPOPS + "'s: it counts lscpu's NUMA node lines; nhc counts the nodes in "
                + "/sys/devices/system/node, where lscpu reads them");
        return Translated.checks(c);
    }

    /** Azure's check_nvme_count N: find /dev -maxdepth 1 | grep -cE '/dev/nvme[0-9]+n1$' is exactly N. */
    private static Outcome nvmeCount(List<String> args) {
        if (args.size() != 1 || !args.get(0).matches("[0-9]{1,4}")) {
            return new CarriedOver("check_nvme_count takes one count (without it, Azure's function fails on every node)");
        }
        NhcCheck c = new NhcCheck("nvme-count", "disk.nvme").with("count", Long.parseLong(args.get(0))).noWarnings()
                .failWhen("disks", "!= " + args.get(0));
        c.differs("check_nvme_count is Azure's azurehpc-health-checks': it counts the /dev/nvmeNn1 device nodes; nhc counts the kernel's "
                + "block devices of the same names in /sys/class/block, which /dev's nodes are made from");
        return Translated.checks(c);
    }
}
