package dev.nhc.checks.net;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ibstat output in the shapes infiniband-diags prints it (ibstat.c's ca_dump/port_dump), and ib.ports judging it. */
class IbstatParserTest {
    @TempDir
    Path dir;

    /** One CA block as ibstat prints it, tab-indented. */
    static String ca(String name, String type, String... ports) {
        StringBuilder b = new StringBuilder("CA '" + name + "'\n\tCA type: " + type + "\n\tNumber of ports: " + ports.length + "\n"
                + "\tFirmware version: 28.39.1002\n\tHardware version: 0\n\tNode GUID: 0x946dae0300a1b2c4\n"
                + "\tSystem image GUID: 0x946dae0300a1b2c4\n");
        for (String p : ports) {
            b.append(p);
        }
        return b.toString();
    }

    static String port(int n, String state, String phys, String rate, String layer) {
        return "\tPort " + n + ":\n\t\tState: " + state + "\n\t\tPhysical state: " + phys + "\n\t\tRate: " + rate + "\n"
                + "\t\tBase lid: " + (layer.equals("Ethernet") ? 0 : 17 + n) + "\n\t\tLMC: 0\n\t\tSM lid: " + (layer.equals("Ethernet") ? 0 : 1) + "\n"
                + "\t\tCapability mask: 0xa751e848\n\t\tPort GUID: 0x946dae0300a1b2c4\n\t\tLink layer: " + layer + "\n";
    }

    /** Eight NDR HCAs as ibstat lists them, mlx5_3 down and polling (a down port shows a meaningless rate). */
    static String eightNdrOneDown() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            b.append(ca("mlx5_" + i, "MT4129", i == 3 ? port(1, "Down", "Polling", "10", "InfiniBand")
                    : port(1, "Active", "LinkUp", "400", "InfiniBand")));
        }
        return b.toString();
    }

    @Test
    void readsEveryPortWithItsStateRateAndLinkLayer() throws Exception {
        String text = ca("mlx5_0", "MT4129", port(1, "Active", "LinkUp", "400", "InfiniBand"))
                + ca("mlx5_1", "MT4125", port(1, "Active", "LinkUp", "100", "Ethernet"), port(2, "Down", "Disabled", "40", "Ethernet"))
                + ca("mlx4_0", "MT4099", port(1, "Initializing", "LinkUp", "40 (FDR10)", "InfiniBand"))
                + ca("qib0", "InfiniPath_QLE7340", port(1, "Armed", "LinkUp", "2.5", "InfiniBand"));
        IbstatCapture c = IbstatParser.parse("ibstat.txt", text);
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1", "mlx5_1/2", "mlx4_0/1", "qib0/1"), c.ports().stream().map(IbPort::id).toList());
        IbPort ndr = c.ports().get(0);
        assertEquals("ACTIVE", ndr.state());
        assertEquals("LinkUp", ndr.physState());
        assertEquals(400.0, ndr.rateGbps());
        assertEquals("InfiniBand", ndr.linkLayer());
        assertTrue(ndr.counters().isEmpty(), "ibstat prints no counters");
        assertEquals("DOWN", c.ports().get(2).state());
        assertEquals("Disabled", c.ports().get(2).physState());
        assertEquals("Ethernet", c.ports().get(2).linkLayer());
        IbPort fdr10 = c.ports().get(3);
        assertEquals("INIT", fdr10.state());
        assertEquals(40.0, fdr10.rateGbps());
        assertEquals("FDR10", fdr10.linkSpeed());
        assertEquals("ARMED", c.ports().get(4).state());
        assertEquals(2.5, c.ports().get(4).rateGbps());
        assertEquals(List.of(), c.panics());
    }

    @Test
    void indentationDoesNotMatterAndTheOnePortFormIsRead() throws Exception {
        String spaces = ca("mlx5_10", "MT4129", port(1, "Down", "Polling", "10", "InfiniBand")).replace("\t", "    ");
        assertEquals("DOWN", IbstatParser.parse("t", spaces).ports().get(0).state());
        // 'ibstat mlx5_0 1': "CA: 'name'" and the port without indentation; old ibstat has no link layer line
        IbstatCapture one = IbstatParser.parse("t", "CA: 'mlx5_0'\nPort 1:\nState: Active\nPhysical state: LinkUp\nRate: 200\n"
                + "Base lid: 7\nLMC: 0\nSM lid: 1\nCapability mask: 0x2651e848\nPort GUID: 0x0002c90300a1b2c4\n");
        assertEquals("mlx5_0/1", one.ports().get(0).id());
        assertEquals("InfiniBand", one.ports().get(0).linkLayer());
        assertEquals("Polling", IbstatParser.parse("t", spaces.replace("\n", "\r\n")).ports().get(0).physState(), "CRLF line ends");
    }

    @Test
    void anIbpanicKeepsWhatWasPrintedBeforeOrAfterIt() throws Exception {
        String panic = "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n";
        StringBuilder printed = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            printed.append(ca("mlx5_" + i, "MT4129", port(1, "Active", "LinkUp", "400", "InfiniBand")));
        }
        IbstatCapture after = IbstatParser.parse("t", printed + panic);
        assertEquals(8, after.ports().stream().filter(IbPort::readable).count());
        assertEquals(List.of("mlx5_8: line 137: ibstat could not read mlx5_8 ('ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: …')"), unreadable(after), "the device ibstat could not read is a port nhc could not read");
        assertEquals(List.of(panic.strip()), after.panics());
        // with 2>&1 into a file, stdout is flushed at exit: the panic comes first
        assertEquals(8, IbstatParser.parse("t", panic + printed).ports().stream().filter(IbPort::readable).count());
        IbstatCapture nothing = IbstatParser.parse("t", "ibpanic: [77] main: can't list IB device names: No such file or directory\n");
        assertEquals(List.of(), nothing.ports(), "ibstat found no device: zero ports, judged as such");
    }

    /** The ports of a capture that could not be read, as "id: why". */
    private static List<String> unreadable(IbstatCapture c) {
        return c.ports().stream().filter(p -> !p.readable()).map(p -> p.id() + ": " + p.problem()).toList();
    }

    @Test
    void whatCannotBeReadWithConfidenceIsAnUnreadablePortOrAProblemNamingTheLine() {
        IbstatCapture cut = IbstatParser.parse("t", ca("mlx5_0", "MT4129", port(1, "Active", "LinkUp", "400", "InfiniBand"))
                + "CA 'mlx5_1'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n");
        assertEquals(List.of("mlx5_1/1: line 21: port mlx5_1/1 has no Physical state, Rate: the capture is cut off there"), unreadable(cut));
        assertTrue(cut.ports().get(0).readable(), "the port before the cut is read");

        IbstatCapture fewer = IbstatParser.parse("t", "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 2\n"
                + port(1, "Active", "LinkUp", "400", "InfiniBand"));
        assertTrue(unreadable(fewer).get(0).startsWith("mlx5_0/2: line 1: CA 'mlx5_0' has 2 ports but 1 port blocks follow"), unreadable(fewer).toString());

        IbstatCapture shortForm = IbstatParser.parse("t", "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n");
        assertTrue(unreadable(shortForm).get(0).contains("'ibstat -s'"), unreadable(shortForm).toString());

        IbstatCapture rate = IbstatParser.parse("t", ca("mlx5_0", "MT4129", port(1, "Active", "LinkUp", "fast", "InfiniBand")));
        assertEquals(List.of("mlx5_0/1: line 8: port mlx5_0/1: its rate is not a number of Gb/s: 'fast'"), unreadable(rate));

        IbstatCapture garbage = IbstatParser.parse("t", "Infiniband device 'mlx5_0' port 1 status:\n\tdefault gid:\t fe80:0000:0000:0000\n");
        assertTrue(garbage.problems().get(0).startsWith("line 1: expected ibstat output"), garbage.problems().toString());
        assertEquals(List.of(), garbage.ports());

        assertTrue(IbstatParser.parse("t", "\n\n").problems().get(0).contains("not ibstat output"));

        String twice = ca("mlx5_0", "MT4129", port(1, "Active", "LinkUp", "400", "InfiniBand"));
        assertTrue(IbstatParser.parse("t", twice + twice).problems().get(0).contains("appears a second time"));
    }

    @Test
    void aHugeFileIsRefusedUnread() throws Exception {
        Path big = dir.resolve("big.txt");
        Files.write(big, new byte[5 << 20]);
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class, () -> IbstatParser.parse(big));
        assertEquals(big + " is 5242880 bytes; a capture may be at most 4194304 bytes (4 MiB)", e.getMessage());
    }

    /** A missing capture is the same "no such file" as any other capture's, not a bare NoSuchFileException("/path"). */
    @Test
    void aMissingFileIsRefusedWithItsName() {
        Path none = dir.resolve("none.txt");
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class, () -> IbstatParser.parse(none));
        assertEquals("cannot read " + none + ": no such file", e.getMessage());
    }

    /** A replay: the capture offered as the ports source, judged by the same default rules as sysfs. */
    private Verdict replay(String ibstat, String with) throws Exception {
        Path file = dir.resolve("ibstat.txt");
        Files.writeString(file, ibstat);
        return new Pipeline(dir, new IbPortsProbe()).service(IbPortsSource.class, IbstatParser.parse(file))
                .run("- { name: ib, use: ib.ports, with: " + with + " }");
    }

    @Test
    void aReplayedDownPortFailsByNameAndCountNamesIt() throws Exception {
        Finding port = Pipeline.about(replay(eightNdrOneDown(), "{}"), "ib", "port mlx5_3/1");
        assertEquals(Severity.FAIL, port.severity());
        assertEquals("port mlx5_3/1 is DOWN (Polling), expected ACTIVE", port.message());
        assertNull(port.observed().get("link_downed"), "no counters in ibstat output");
        assertEquals("only 7 of 8 ports up: mlx5_3/1 DOWN (Polling)",
                Pipeline.about(replay(eightNdrOneDown(), "{ count: 8, rate: 400 }"), "ib", "node").message());
    }

    @Test
    void aPartialOutputIsJudgedOnWhatWasPrintedNotOnThePanic() throws Exception {
        StringBuilder printed = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            printed.append(ca("mlx5_" + i, "MT4129", port(1, "Active", "LinkUp", "400", "InfiniBand")));
        }
        String panic = "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n";
        Verdict eight = replay(printed + panic, "{ count: 8, rate: 400 }");
        assertEquals(Severity.UNKNOWN, Pipeline.severity(eight, "ib"),
                "eight ports active at 400, and a ninth device ibstat could not read: no failure, and no pass either");
        Finding ninth = Pipeline.about(eight, "ib", "device mlx5_8");
        assertEquals(Severity.UNKNOWN, ninth.severity());
        assertTrue(ninth.message().contains("ibstat could not read mlx5_8 ('ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed"), ninth.message());
        assertTrue(eight.findings().stream().noneMatch(f -> f.severity() == Severity.FAIL), eight.findings().toString());
    }
}
