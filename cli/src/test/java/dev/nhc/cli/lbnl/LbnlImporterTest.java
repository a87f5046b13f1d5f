package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.rules.RuleEngine;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The import of LBNL-style configs written for this test: every function the migration covers, the
 * host match forms, LBNL's own variables. Each produced config is loaded by nhc's ConfigLoader.
 */
class LbnlImporterTest {
    private static final ConfigLoader LOADER = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), ConfigLoader.sectionsOnClassPath());

    /** A script check's argv, read as the script probe reads it. */
    private static final dev.nhc.probe.ParamSpec<List<String>> COMMAND = dev.nhc.probe.ParamSpec.texts("command", "argv");

    private static LbnlImporter.Result imported(String conf) {
        return new LbnlImporter("/usr/sbin/nhc", false).importConfig("site.conf", conf);
    }

    /** The YAML the import writes, loaded as nhc would load it; fails the test with every problem otherwise. */
    private static Config load(LbnlImporter.Result r) {
        String yaml = YamlWriter.write(r);
        try {
            return LOADER.parse("imported.yaml", yaml, null).config();
        } catch (ConfigException e) {
            fail("the imported config does not load:\n" + e.problems().stream().map(Object::toString).collect(Collectors.joining("\n")) + "\n" + yaml);
            return null;
        }
    }

    private static CheckConfig check(Config c, String name) {
        return c.check(name).orElseThrow(() -> new AssertionError("no check " + name + " in " + c.checks().stream().map(CheckConfig::name).toList()));
    }

    private static Entry entry(LbnlImporter.Result r, int line) {
        return r.entries().stream().filter(e -> e.line().number() == line).findFirst()
                .orElseThrow(() -> new AssertionError("no entry for line " + line));
    }

    @Test
    void filesystemChecksBecomeDiskMountAndDiskUsageWithDfsArithmetic() {
        LbnlImporter.Result r = imported("""
                * || check_fs_mount_rw -f /
                * || check_fs_mount_ro -t squashfs -f /opt/image /opt/image2
                * || check_fs_mount -s fs01:/export/home -t nfs4 -o '/(^|,)vers=4.2(,|$)/' -f /home
                * || check_fs_mount_rw /scratch /dev/sdb1 xfs
                * || check_fs_free / 4%
                * || check_fs_free /tmp 2GB
                * || check_fs_used /var 90%
                * || check_fs_used /var/log 512m
                * || check_fs_size /scratch 1t 2t
                * || check_fs_ifree / 1k
                * || check_fs_iused / 95%
                * || check_fs_inodes / 1M 2M
                * || check_fs_mount_rw -r -f /data
                * || check_fs_mount -t tmpfs -s '/(tmpfs|none)/' -f /dev/shm
                """);
        assertEquals(0, r.count(Kind.REFUSED));
        Config c = load(r);
        CheckConfig root = check(c, "fs-mount-rw-root");
        assertEquals("disk.mount", root.use());
        assertEquals(List.of("rw"), root.with().raw("options"));
        assertEquals("squashfs", check(c, "fs-mount-ro-opt-image").with().raw("fstype"));
        assertEquals(List.of("ro"), check(c, "fs-mount-ro-opt-image2").with().raw("options"));
        CheckConfig home = check(c, "fs-mount-home");
        assertEquals("fs01:/export/home", home.with().raw("source"));
        assertEquals(List.of("vers=4.2"), home.with().raw("options"));
        CheckConfig old = check(c, "fs-mount-rw-scratch");
        assertEquals("/dev/sdb1", old.with().raw("source"));
        assertEquals("xfs", old.with().raw("fstype"));
        String yaml = YamlWriter.write(r);
        assertTrue(yaml.contains("      - used_percent: \"> 96%\""), yaml);
        assertTrue(yaml.contains("      - free_bytes: \"< 2GiB\""), yaml);
        assertTrue(yaml.contains("      - used_percent: \"> 89%\""), yaml);
        assertTrue(yaml.contains("      - used_bytes: \">= 512MiB\""), yaml);
        assertTrue(yaml.contains("      - size_bytes: \"< 1TiB\"\n      - size_bytes: \"> 2TiB\""), yaml);
        assertTrue(yaml.contains("      - inodes_free: \"< 1000\""), yaml);
        assertTrue(yaml.contains("      - inodes_used_percent: \"> 94%\""), yaml);
        assertEquals("disk.usage", check(c, "fs-free-root").use());
        assertEquals(Kind.CARRIED_OVER, entry(r, 12).kind(), "no total inode count in nhc");
        assertTrue(entry(r, 13).reason().contains("-r remounts"), entry(r, 13).reason());
        assertTrue(entry(r, 14).reason().contains("is a pattern"), entry(r, 14).reason());
    }

    @Test
    void hardwareChecksBecomeCpuAndMemoryRulesWithTheFudgeFactorWorkedIn() {
        LbnlImporter.Result r = imported("""
                * || check_hw_cpuinfo 2 32 64
                * || check_hw_physmem 512gb 512gb 3%
                * || check_hw_swap 0 0
                * || check_hw_swap 8g 8g 1g
                * || check_hw_swap_free 1MB
                * || check_hw_mem 40g 40g 5%
                * || check_hw_physmem_free 1MB
                * || check_hw_ib 200
                * || check_hw_eth ib0
                * || check_hw_physmem 32gb
                """);
        Config c = load(r);
        assertEquals("cpu", check(c, "hw-cpuinfo").use());
        String yaml = YamlWriter.write(r);
        assertTrue(yaml.contains("      - sockets: \"!= 2\"\n      - cores: \"!= 32\"\n      - threads: \"!= 64\""), yaml);
        // 512 GiB = 536870912 kB; LBNL fails when T + floor(3T/100) < 536870912 or T - floor(3T/100) > 536870912
        assertTrue(yaml.contains("      - total: \"< 521233896KiB\"\n      - total: \"> 553475167KiB\""), yaml);
        long least = 521233896;
        assertTrue(least + 3 * least / 100 >= 536870912 && (least - 1) + 3 * (least - 1) / 100 < 536870912);
        long greatest = 553475167;
        assertTrue(greatest - 3 * greatest / 100 <= 536870912 && (greatest + 1) - 3 * (greatest + 1) / 100 > 536870912);
        assertTrue(yaml.contains("      - swap_total: \"> 0KiB\""), yaml);
        assertTrue(yaml.contains("      - swap_total: \"< 7GiB\"\n      - swap_total: \"> 9GiB\""), yaml);
        assertTrue(yaml.contains("      - swap_free: \"< 1MiB\""), yaml);
        assertEquals(Kind.CARRIED_OVER, entry(r, 6).kind());
        assertTrue(entry(r, 7).reason().contains("MemFree + Buffers + Cached"), entry(r, 7).reason());
        assertEquals(Kind.CARRIED_OVER, entry(r, 8).kind(), "ib.ports is off in this importer");
        assertEquals(Kind.CARRIED_OVER, entry(r, 9).kind());
        assertEquals(Kind.REFUSED, entry(r, 10).kind(), "no maximum: LBNL fails on every node");
    }

    @Test
    void checkHwIbBecomesIbPortsBehindTheSwitch() {
        LbnlImporter.Result r = new LbnlImporter("/usr/sbin/nhc", true).importConfig("site.conf", """
                * || check_hw_ib 100 mlx5_0:1
                * || check_hw_ib 40
                * || check_hw_ib
                """);
        String yaml = YamlWriter.write(r);
        assertTrue(yaml.contains("    use: ib.ports\n    with:\n      rate: 100\n      devices: [\"mlx5_0:1\"]"), yaml);
        assertTrue(yaml.contains("    use: ib.ports\n    with:\n      rate: 40\n"), yaml);
        assertEquals(Kind.CARRIED_OVER, entry(r, 3).kind(), "no rate: not the form the switch covers");
    }

    @Test
    void processChecksBecomeProcessAndLoadButServiceActionsAreCarriedOver() {
        LbnlImporter.Result r = imported("""
                * || check_ps_service -u root sshd
                * || check_ps_service -u root -S slurmd
                * || check_ps_service -d chronyd -r chrony
                * || check_ps_service -c nscd
                * || check_ps_service -d crond cron
                * || check_ps_daemon munged munge
                * || check_ps_daemon dcgm-exporter
                * || check_ps_loadavg 24 20 16
                * || check_ps_loadavg $((2*HW_CORES))
                * || check_ps_service -m '*java*' tomcat
                """);
        Config c = load(r);
        CheckConfig sshd = check(c, "ps-service-sshd");
        assertEquals("process", sshd.use());
        assertEquals("sshd", sshd.with().raw("name"));
        assertEquals("root", sshd.with().raw("user"));
        assertTrue(entry(r, 2).reason().contains("-S starts"), entry(r, 2).reason());
        assertTrue(entry(r, 3).reason().contains("-r restarts"), entry(r, 3).reason());
        assertTrue(entry(r, 4).reason().contains("-c cycles"), entry(r, 4).reason());
        assertEquals("crond", check(c, "ps-service-cron").with().raw("name"));
        assertEquals("munge", check(c, "ps-daemon-munged").with().raw("user"));
        assertFalse(check(c, "ps-daemon-dcgm-exporter").with().has("user"));
        String yaml = YamlWriter.write(r);
        assertTrue(yaml.contains("    use: load\n    warn: none\n    fail:\n      - load1: \">= 24\"\n      - load5: \">= 20\"\n      - load15: \">= 16\""), yaml);
        assertEquals(Kind.REFUSED, entry(r, 9).kind());
        assertTrue(entry(r, 9).reason().contains("$HW_CORES"), entry(r, 9).reason());
        assertEquals(Kind.CARRIED_OVER, entry(r, 10).kind());
    }

    @Test
    void fileAndCommandChecks() {
        LbnlImporter.Result r = imported("""
                * || check_file_contents /etc/passwd "/^root:x:0:0:/" "daemon:*"
                * || check_file_contents /etc/passwd '!/^toor:/'
                * || check_file_test -e -s /etc/hostname /etc/hosts
                * || check_file_test -d -k /scratch/tmp
                * || check_cmd_status -t 1 -r 1 fail-probe
                * || check_cmd_output -m '/inet 10\\.1\\.2\\.3/' /sbin/ip addr show ib0
                * || check_cmd_output -t 10 -e '/usr/bin/nvidia-smi -L' -m '/^GPU [0-9]+:/'
                * || check_cmd_output -m '/a/' -m '/b/' /bin/true
                * || check_cmd_status -t 60 /bin/sleep 1
                """);
        Config c = load(r);
        CheckConfig root = check(c, "file-contents-etc-passwd-1");
        assertEquals("^[ \\t]*root:x:0:0:", String.valueOf(root.with().raw("contains")));
        String glob = String.valueOf(check(c, "file-contents-etc-passwd-2").with().raw("contains"));
        assertTrue(java.util.regex.Pattern.compile(glob, java.util.regex.Pattern.MULTILINE).matcher("x\n  daemon:x:1:1::/:/sbin/nologin\n").find(), glob);
        assertFalse(java.util.regex.Pattern.compile(glob, java.util.regex.Pattern.MULTILINE).matcher("x\nnodaemon:x\n").find(), glob);
        assertEquals(Kind.CARRIED_OVER, entry(r, 2).kind(), "a negated match");
        assertEquals("/etc/hosts", check(c, "file-test-etc-hosts").with().raw("path"));
        assertTrue(YamlWriter.write(r).contains("      path: /etc/hosts\n    fail:\n      - size: \"== 0\""));
        assertEquals(Kind.CARRIED_OVER, entry(r, 4).kind());
        CheckConfig selinux = check(c, "cmd-status-fail-probe");
        assertEquals(List.of("fail-probe"), selinux.with().get(COMMAND));
        assertEquals(1L, selinux.with().raw("exit_code"));
        assertEquals(java.time.Duration.ofSeconds(1), selinux.with().raw("timeout"));
        CheckConfig ifconfig = check(c, "cmd-output-ip");
        // LBNL reads the line with 'read' (no -r), which drops the backslashes: its regex is inet 10.1.2.3
        assertEquals("inet 10[^\\n]1[^\\n]2[^\\n]3", String.valueOf(ifconfig.with().raw("output")));
        CheckConfig smi = check(c, "cmd-output-nvidia-smi");
        assertEquals(List.of("/usr/bin/nvidia-smi", "-L"), smi.with().get(COMMAND));
        assertEquals(java.time.Duration.ofSeconds(12), smi.timeout(), "a command limit of 10 s needs a longer check timeout");
        assertEquals(Kind.CARRIED_OVER, entry(r, 8).kind());
        assertEquals(Kind.REFUSED, entry(r, 9).kind(), "60 s > LBNL's TIMEOUT of 30 s");
    }

    @Test
    void hostMatchFormsBecomeHostgroupsThatSelectTheSameNames() {
        LbnlImporter.Result r = imported("""
                n0[1-4] || check_fs_free /scratch 10%
                {n[1-10],gpu01} || check_hw_cpuinfo 2
                !login* || check_ps_daemon slurmd root
                /^login/ || check_fs_free /home 1%
                /gpu|dgx/ || check_ps_daemon nv-hostengine
                /^gpu[0-9]+$/ || check_fs_free / 1%
                n[1-4]* || check_fs_free /tmp 1%
                {n[8-12]} || check_fs_free /var 1%
                """);
        Config c = load(r);
        CheckConfig scratch = check(c, "fs-free-scratch");
        assertTrue(scratch.on().matches("n03"));
        assertFalse(scratch.on().matches("n05"));
        assertFalse(scratch.on().matches("n003"));
        CheckConfig cpu = check(c, "hw-cpuinfo");
        assertTrue(cpu.on().matches("n05"), "LBNL's pdsh width is the end's: n05 is in {n[1-10]}");
        assertFalse(cpu.on().matches("n5"), "and n5 is not");
        assertTrue(cpu.on().matches("n10") && cpu.on().matches("gpu01"));
        CheckConfig slurmd = check(c, "ps-daemon-slurmd");
        assertFalse(slurmd.on().matches("login1"));
        assertTrue(slurmd.on().matches("n01"));
        CheckConfig home = check(c, "fs-free-home");
        assertTrue(home.on().matches("login2"));
        assertFalse(home.on().matches("xlogin"));
        CheckConfig nv = check(c, "ps-daemon-nv-hostengine");
        assertTrue(nv.on().matches("gpu7") && nv.on().matches("bigdgx2") && !nv.on().matches("cpu1"));
        // [0-9]+ has no exact nhc form: LBNL's own mcheck decides on every host
        Entry regex = entry(r, 6);
        assertEquals(Kind.CARRIED_OVER, regex.kind());
        List<String> cmd = check(c, regex.checks().get(0).name()).with().get(COMMAND);
        assertEquals("mcheck \"$HOSTNAME\" '/^gpu[0-9]+$/' || exit 0; check_fs_free / 1%", cmd.get(2));
        assertEquals(Kind.CARRIED_OVER, entry(r, 7).kind(), "a digit class followed by * takes all digits in nhc");
        CheckConfig var = check(c, "fs-free-var");
        assertTrue(var.on().matches("n08") && var.on().matches("n12"));
        assertFalse(var.on().matches("n8"));
    }

    /** More digits than a long holds: once a NumberFormatException (exit 3), now a reason on the line. */
    @Test
    void aHostRangeOfMoreThan18DigitsIsSaidOnItsLine() {
        LbnlImporter.Result r = imported("""
                * || check_fs_free / 1%
                {n[00000000000000000001-99999999999999999999]} || check_fs_free /tmp 1%
                """);
        Entry e = entry(r, 2);
        String said = e.reason() + " " + e.notes();
        assertTrue(said.contains("more than 18 digits"), e.toString());
        load(r);
    }

    @Test
    void lbnlVariablesBecomeSettingsOrNotesAndOthersReachTheCarriedOverChecks() {
        LbnlImporter.Result r = imported("""
                * || export TIMEOUT=15
                * || export MARK_OFFLINE=0
                * || export NHC_RM=slurm
                * || HOSTNAME="$HOSTNAME_S"
                * || export MCELOG_MAX_CORRECTED_RATE=3
                * || check_hw_mcelog
                * || export NHC_RM=pbs
                gpu* || export TIMEOUT=60
                * || export DF_FLAGS=-Tkal
                * || check_fs_free / 3%
                * || check_cmd_status -t 20 /bin/true
                """);
        Config c = load(r);
        assertEquals(java.time.Duration.ofSeconds(15), c.settings().deadline());
        assertEquals(java.time.Duration.ofSeconds(10), c.settings().checkTimeout());
        assertEquals(Kind.TRANSLATED, entry(r, 2).kind());
        assertTrue(entry(r, 2).notes().get(0).contains("--slurm"));
        assertEquals(Kind.TRANSLATED, entry(r, 3).kind());
        assertEquals(Kind.TRANSLATED, entry(r, 4).kind());
        assertEquals(Kind.CARRIED_OVER, entry(r, 5).kind());
        List<String> mcelog = check(c, "lbnl-hw-mcelog").with().get(COMMAND);
        assertEquals(List.of("/usr/sbin/nhc", "-e", "export MCELOG_MAX_CORRECTED_RATE=3; check_hw_mcelog"), mcelog);
        assertEquals(Kind.REFUSED, entry(r, 7).kind(), "nhc cannot tell PBS");
        assertEquals(Kind.REFUSED, entry(r, 8).kind(), "settings are for every host");
        assertEquals(Kind.CARRIED_OVER, entry(r, 10).kind(), "DF_FLAGS changes what check_fs_free reads");
        assertTrue(entry(r, 10).reason().contains("DF_FLAGS"));
        assertEquals(Kind.REFUSED, entry(r, 11).kind(), "20 s > TIMEOUT=15");
    }

    @Test
    void everyNonCommentLineIsAccountedForAndRefusalsSayWhy() {
        String conf = """
                # a comment
                   # an indented comment

                * || check_fs_free / 3%
                check_fs_free / 5%
                * ||
                * || check_nv_healthmon
                * || my_site_check --quick
                * || check_fs_free / 5% ; echo hi
                """;
        LbnlImporter.Result r = imported(conf);
        assertEquals(6, r.entries().size());
        assertEquals(List.of(4, 5, 6, 7, 8, 9), r.entries().stream().map(e -> e.line().number()).toList());
        assertEquals(Kind.REFUSED, entry(r, 5).kind());
        assertTrue(entry(r, 5).reason().contains("no '||'"));
        assertEquals(Kind.REFUSED, entry(r, 6).kind());
        assertTrue(entry(r, 8).reason().contains("not one of LBNL NHC's check functions"));
        assertTrue(entry(r, 9).reason().contains("more than one simple command"), entry(r, 9).reason());
        String yaml = YamlWriter.write(r);
        assertTrue(yaml.contains("# REFUSED, not imported: no '||'"), yaml);
        assertNotNull(load(r));
    }

    @Test
    void awkwardTextCannotBreakTheYaml() {
        // a continued line, quotes, '#', ': ' and a control character inside a carried-over line
        LbnlImporter.Result r = imported("* || check_dmi_data_match -t \"Memory Device\" \\\n  \"*Speed: 4800 MT/s # \\\"x\\\"\"\n"
                + "* || check_dmi_data_match 'a\u0007b: c'\n");
        Config c = load(r);
        List<String> first = c.checks().get(0).with().get(COMMAND);
        // read drops the backslashes and joins the continued line; eval's word splitting collapses the blanks
        assertEquals("check_dmi_data_match -t \"Memory Device\" \"*Speed: 4800 MT/s # \"x\"\"", first.get(2));
        assertEquals("check_dmi_data_match 'a\u0007b: c'", c.checks().get(1).with().get(COMMAND).get(2));
        assertEquals(2, c.checks().size());
        assertFalse(YamlWriter.write(r).contains("\u0007"));
    }
}
