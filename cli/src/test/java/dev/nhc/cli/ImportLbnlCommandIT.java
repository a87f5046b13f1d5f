package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc import-lbnl} as a process: YAML on stdout that check-config accepts, what differs on stderr, exit codes. */
class ImportLbnlCommandIT {
    @TempDir
    Path dir;

    @Test
    void writesAConfigThatNhcLoadsAndSaysOnStderrWhatItCouldNotKeep() throws Exception {
        Path conf = dir.resolve("nhc.conf");
        Files.writeString(conf, """
                # LBNL NHC config written for this test
                * || export TIMEOUT=20
                * || check_fs_mount_rw -f /
                * || check_fs_free / 1%
                * || check_ps_loadavg 1000
                * || check_hw_eth lo
                * || export NHC_RM=sge
                check_hw_cpuinfo 1
                * || check_ps_service -u root -S sshd
                * || check_hw_gm myri0
                """);
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "import-lbnl", "--lbnl-nhc", dir.resolve("no-lbnl-nhc").toString(), conf.toString());
        assertEquals(1, r.exit(), "a line was refused: " + r.err());
        assertTrue(r.err().contains(conf + ":7: refused: NHC_RM=sge"), r.err());
        assertTrue(r.err().contains(conf + ":8: differs: LBNL NHC skips this line (it has no '||'"), r.err());
        assertTrue(r.err().contains(conf + ":9: differs: LBNL NHC runs '/sbin/service sshd start' when sshd is not running; nhc does so only with "
                + "settings.run_actions: true"), r.err());
        assertTrue(r.err().contains(conf + ":10: carried over (LBNL NHC evaluates it): nhc has no Myrinet probe"), r.err());
        assertTrue(r.err().contains("7 lines translated, 1 carried over as LBNL script checks, 1 refused"), r.err());
        assertTrue(r.err().contains("nhc: warning: the carried-over checks run LBNL NHC's " + dir.resolve("no-lbnl-nhc") + ", which is not installed here"),
                r.err());
        assertTrue(r.out().startsWith("# nhc config imported by 'nhc import-lbnl'"), r.out());
        Path yaml = dir.resolve("nhc.yaml");
        Files.writeString(yaml, r.out());
        NhcProcess.Result check = NhcProcess.run(dir, Map.of(), "check-config", "-c", yaml.toString());
        assertEquals(0, check.exit(), check.out() + check.err() + r.out());
        assertTrue(check.out().contains("valid, 6 checks"), check.out());
        assertTrue(check.out().contains("root-mount-rw (disk.mount)"), check.out());
        assertTrue(check.out().contains("net-lo (net.interface)"), check.out());
        assertTrue(check.out().contains("lbnl-hw-gm-myri0 (script)"), check.out());
    }

    @Test
    void aNodesSysconfigFillsInTheValuesAndAFileItCannotReadIsRefusedByLine() throws Exception {
        Path conf = Files.writeString(dir.resolve("nhc.conf"), "* || check_hw_eth $NHC_ETH0\n* || check_hw_cpuinfo $NHC_SOCKETS\n");
        Path sys = Files.writeString(dir.resolve("sysconfig"), "# the node's values\nNHC_ETH0=lo\nNHC_SOCKETS=1\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "import-lbnl", "--sysconfig", sys.toString(), conf.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains(conf + ": 2 lines translated, 0 carried over"), r.err());
        assertTrue(r.err().contains(conf + ": 2 lines take their values from " + sys + " (each check's comment says which)"), r.err());
        assertTrue(r.out().contains("# note: $NHC_ETH0 is lo in " + sys), r.out());
        Files.writeString(sys, "NHC_ETH0=lo\n. /etc/nhc/more\n");
        NhcProcess.Result bad = NhcProcess.run(dir, Map.of(), "import-lbnl", "--sysconfig", sys.toString(), conf.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().startsWith(sys + ":2: not a plain assignment"), bad.err());
        assertEquals("", bad.out());
    }

    @Test
    void checkHwIbWithLbnlsDevicePortPassesOnAnActivePortAndFailsWhenItIsDown() throws Exception {
        Path conf = Files.writeString(dir.resolve("ib.conf"), "* || check_hw_ib 400 mlx5_0:1\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "import-lbnl", conf.toString());
        assertEquals(0, r.exit(), r.err());
        Path root = dir.resolve("root");
        Path port = Files.createDirectories(root.resolve("sys/class/infiniband/mlx5_0/ports/1"));
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("phys_state"), "5: LinkUp\n");
        Files.writeString(port.resolve("rate"), "400 Gb/sec (4X NDR)\n");
        Files.writeString(port.resolve("link_layer"), "InfiniBand\n");
        Files.createDirectories(root.resolve("sys/class/infiniband_mad"));
        Files.writeString(root.resolve("sys/class/infiniband_mad/abi_version"), "5\n");
        Path yaml = Files.writeString(dir.resolve("ib.yaml"), r.out().replaceFirst("(?m)^nhc: 1$",
                "nhc: 1\nsettings: { root: " + root + ", state_dir: " + dir.resolve("state") + " }"));
        NhcProcess.Result healthy = NhcProcess.run(dir, Map.of(), "run", "-c", yaml.toString());
        assertEquals(0, healthy.exit(), healthy.out() + healthy.err() + r.out());
        Files.writeString(port.resolve("state"), "1: DOWN\n");
        Files.writeString(port.resolve("phys_state"), "3: Disabled\n");
        NhcProcess.Result down = NhcProcess.run(dir, Map.of(), "run", "-c", yaml.toString());
        assertEquals(1, down.exit(), down.out() + down.err());
        assertTrue(down.out().contains("ib-mlx5_0-400"), down.out());
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("phys_state"), "5: LinkUp\n");
        Files.writeString(port.resolve("rate"), "200 Gb/sec (4X HDR)\n");
        assertEquals(1, NhcProcess.run(dir, Map.of(), "run", "-c", yaml.toString()).exit(), "LBNL wants exactly 400 Gb/s");
    }

    @Test
    void checkConfigRefusesADeviceNameIbPortsCannotResolve() throws Exception {
        Path yaml = Files.writeString(dir.resolve("bad.yaml"), """
                nhc: 1
                checks:
                  - name: ib
                    use: ib.ports
                    with: { rate: 400, devices: ["mlx5_0 port 1"] }
                """);
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "check-config", "-c", yaml.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(yaml + ":5:") && r.err().contains("'mlx5_0 port 1' is not a device (mlx5_0), a device and port"), r.err());
    }

    @Test
    void aConfigWithNothingRefusedExitsZero() throws Exception {
        Path conf = dir.resolve("ok.conf");
        Files.writeString(conf, "* || check_fs_mount_rw -f /\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "import-lbnl", conf.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("use: disk.mount"), r.out());
    }

    @Test
    void anUnreadableFileIsExitTwoWithNoYaml() throws Exception {
        NhcProcess.Result missing = NhcProcess.run(dir, Map.of(), "import-lbnl", dir.resolve("none.conf").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("none.conf: not a readable file"), missing.err());
        assertEquals("", missing.out());
        Path binary = dir.resolve("bin.conf");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        NhcProcess.Result notText = NhcProcess.run(dir, Map.of(), "import-lbnl", binary.toString());
        assertEquals(2, notText.exit());
        assertTrue(notText.err().contains("not UTF-8 text"), notText.err());
        NhcProcess.Result noFile = NhcProcess.run(dir, Map.of(), "import-lbnl");
        assertEquals(2, noFile.exit());
        assertFalse(noFile.err().contains("Exception"), noFile.err());
    }
}
