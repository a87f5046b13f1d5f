package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc import-lbnl} as a process: YAML on stdout that check-config accepts, refusals on stderr, exit codes. */
class ImportLbnlCommandIT {
    @TempDir
    Path dir;

    @Test
    void writesAConfigThatNhcLoadsAndNamesEveryRefusedLine() throws Exception {
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
                """);
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "import-lbnl", conf.toString());
        assertEquals(1, r.exit(), "some lines were refused: " + r.err());
        assertTrue(r.err().contains(conf + ":7: refused: NHC_RM=sge"), r.err());
        assertTrue(r.err().contains(conf + ":8: refused: no '||'"), r.err());
        assertTrue(r.err().contains("4 lines translated, 1 carried over as LBNL script checks, 2 refused"), r.err());
        assertTrue(r.out().startsWith("# nhc config imported by 'nhc import-lbnl'"), r.out());
        Path yaml = dir.resolve("nhc.yaml");
        Files.writeString(yaml, r.out());
        NhcProcess.Result check = NhcProcess.run(dir, Map.of(), "check-config", "-c", yaml.toString());
        assertEquals(0, check.exit(), check.out() + check.err() + r.out());
        assertTrue(check.out().contains("valid, 4 checks"), check.out());
        assertTrue(check.out().contains("fs-mount-rw-root (disk.mount)"), check.out());
        assertTrue(check.out().contains("lbnl-hw-eth-lo (script)"), check.out());
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
