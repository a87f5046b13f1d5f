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
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The import of LBNL-style configs written for this test: every function the migration covers, the
 * host match forms, LBNL's own variables. Each produced config is loaded by nhc's ConfigLoader. That
 * the checks pass and fail where LBNL NHC does is LbnlSideBySideIT's, against the real LBNL NHC.
 */
class LbnlImporterTest {
    private static final ConfigLoader LOADER = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), ConfigLoader.sectionsOnClassPath());

    /** A script check's argv, read as the script probe reads it. */
    private static final dev.nhc.probe.ParamSpec<List<String>> COMMAND = dev.nhc.probe.ParamSpec.texts("command", "argv");

    private static LbnlImporter.Result imported(String conf) {
        return new LbnlImporter("/usr/sbin/nhc").importConfig("site.conf", conf);
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

    /** The YAML block of one check, from its name to the next check. */
    private static String block(LbnlImporter.Result r, String name) {
        String yaml = YamlWriter.write(r);
        int at = yaml.indexOf("  - name: " + name + "\n");
        assertTrue(at >= 0, "no check " + name + " in\n" + yaml);
        int next = yaml.indexOf("  - name: ", at + 1);
        int comment = yaml.indexOf("\n  # ", at);
        int end = Math.min(next < 0 ? yaml.length() : next, comment < 0 ? yaml.length() : comment + 1);
        return yaml.substring(at, end);
    }

    @Test
    void mountChecksCompareTheColumnsLbnlCompares() {
        LbnlImporter.Result r = imported("""
                * || check_fs_mount_rw -f /
                * || check_fs_mount_ro -t squashfs -f /opt/image /opt/image2
                * || check_fs_mount -s fs01:/export/home -t nfs4 -o '/(^|,)vers=4.2(,|$)/' -f /home
                * || check_fs_mount_rw /scratch /dev/sdb1 xfs
                * || check_fs_mount -t tmpfs -s '/(tmpfs|none)/' -f /dev/shm
                * || check_fs_mount_rw -t nfs -s isilon1:/ifs/home -F /home2
                * || check_fs_mount_rw -r -f /data
                * || check_fs_mount -t '!nfs*' -f /local
                """);
        assertEquals(0, r.count(Kind.REFUSED));
        Config c = load(r);
        assertEquals("disk.mount", check(c, "root-mount-rw").use());
        assertEquals("""
                  - name: root-mount-rw
                    use: disk.mount
                    with:
                      mount: /
                    fail:
                      - mounted: "false"
                      - options: "!~ (^|,)rw($|,)"
                    on_unknown: fail
                """, block(r, "root-mount-rw"));
        assertTrue(block(r, "opt-image-mount-ro").contains("      - fstype: \"!= squashfs\"\n      - options: \"!~ (^|,)ro($|,)\""));
        String home = block(r, "home-mount");
        assertTrue(home.contains("      - source: \"!= fs01:/export/home\"\n      - fstype: \"!= nfs4\"\n      - options: \"!~ (^|,)vers=4[^\\\\n]2(,|$)\""), home);
        assertTrue(block(r, "scratch-mount-rw").contains("      - source: \"!= /dev/sdb1\"\n      - fstype: \"!= xfs\""));
        assertTrue(block(r, "dev-shm-mount").contains("      - source: \"!~ (tmpfs|none)\""), "a source regex is kept: " + block(r, "dev-shm-mount"));
        assertTrue(block(r, "home2-mount-rw").contains("      trigger_automount: true"), "-F looks the mount point up first");
        assertTrue(entry(r, 7).reason().contains("-r remounts"), entry(r, 7).reason());
        assertTrue(block(r, "local-mount").contains("      - fstype: \"~ ^nfs[^\\\\n]*$\""), "a negated glob fails when it matches");
    }

    @Test
    void spaceChecksCompareWhatDfPrintsAndPassWhatDfDoesNotList() {
        LbnlImporter.Result r = imported("""
                * || check_fs_free / 4%
                * || check_fs_free /tmp 2GB
                * || check_fs_used /var 90%
                * || check_fs_used /var/log 512m
                * || check_fs_size /scratch 1t 2t
                * || check_fs_ifree / 1k
                * || check_fs_iused / 95%
                * || check_fs_inodes / 1M 2M
                * || check_fs_free /dev/mapper/vg_root-lv_root 5%
                """);
        load(r);
        assertEquals("""
                  - name: root-free
                    use: disk.usage
                    with:
                      mount: /
                      if_unmounted: pass
                    warn: none
                    fail:
                      - df_use_percent: "> 96%"
                    on_unknown: fail
                """, block(r, "root-free"));
        assertTrue(block(r, "tmp-free").contains("        free_bytes: \"< 2GiB\""));
        assertTrue(block(r, "var-used").contains("      - df_use_percent: \">= 90%\""), "df's rounded-up Use% against the limit as LBNL has it");
        assertTrue(block(r, "var-log-used").contains("        used_bytes: \">= 512MiB\""));
        assertTrue(block(r, "scratch-size").contains("      - df_use_percent: \">= 0%\"\n        size_bytes: \"< 1TiB\"\n"
                + "      - df_use_percent: \">= 0%\"\n        size_bytes: \"> 2TiB\""), "a filesystem of size 0 has no Use%: the rule is undecided, a pass");
        assertTrue(block(r, "root-ifree").contains("      - inodes_free: \"< 1000\""), "no inode table: no field, no rule, a pass");
        assertTrue(block(r, "root-iused").contains("      - df_inodes_use_percent: \">= 95%\""));
        assertEquals(Kind.CARRIED_OVER, entry(r, 8).kind(), "no total inode count in nhc");
        assertTrue(entry(r, 9).differences().get(0).contains("is a device"), "a device path is never in df's mount point column");
    }

    @Test
    void dfFlagsFromTheConfigChangeWhatTheLaterChecksCompare() {
        LbnlImporter.Result r = imported("""
                * || export DF_FLAGS="-Tkal"
                * || export DFI_FLAGS="-Tkal"
                * || check_fs_free /tmp 3%
                * || check_fs_ifree /tmp 1k
                * || export DF_FLAGS="-Th"
                * || check_fs_free / 3%
                """);
        load(r);
        assertEquals(Kind.TRANSLATED, entry(r, 1).kind());
        assertTrue(block(r, "tmp-free").contains("      - remote: \"false\"\n        df_use_percent: \"> 97%\""),
                "-l: a remote filesystem is not listed, so it passes: " + block(r, "tmp-free"));
        assertTrue(block(r, "tmp-ifree").contains("        free_bytes: \"< 1000KiB\""), "DFI_FLAGS without -i: LBNL compares blocks");
        assertTrue(entry(r, 4).differences().get(0).contains("DFI_FLAGS has no -i"), entry(r, 4).toString());
        assertEquals(Kind.CARRIED_OVER, entry(r, 5).kind(), "-h changes what df prints");
        assertEquals(Kind.CARRIED_OVER, entry(r, 6).kind());
    }

    @Test
    void hardwareChecksBecomeCpuMemoryIbAndNetInterfaceRules() {
        LbnlImporter.Result r = imported("""
                * || check_hw_cpuinfo 2 32 64
                * || check_hw_physmem 512gb 512gb 3%
                * || check_hw_swap 0 0
                * || check_hw_swap 8g 8g 1g
                * || check_hw_swap_free 1MB
                * || check_hw_mem 40g 40g 5%
                * || check_hw_physmem_free 1MB
                * || check_hw_mem_free 1mb
                * || check_hw_eth ib0
                * || check_hw_physmem 32gb
                * || check_hw_mcelog
                """);
        Config c = load(r);
        assertEquals("cpu", check(c, "cpus").use());
        assertTrue(block(r, "cpus").contains("      - sockets: \"!= 2\"\n      - cores: \"!= 32\"\n      - threads: \"!= 64\""));
        // 512 GiB = 536870912 kB; LBNL fails when T + floor(3T/100) < 536870912 or T - floor(3T/100) > 536870912
        assertTrue(block(r, "memory").contains("      - total: \"< 521233896KiB\"\n      - total: \"> 553475167KiB\""));
        long least = 521233896;
        assertTrue(least + 3 * least / 100 >= 536870912 && (least - 1) + 3 * (least - 1) / 100 < 536870912);
        assertTrue(block(r, "swap").contains("      - swap_total: \"> 0KiB\""));
        assertTrue(block(r, "swap-2").contains("      - swap_total: \"< 7GiB\"\n      - swap_total: \"> 9GiB\""));
        assertTrue(block(r, "swap-free").contains("      - swap_free: \"< 1MiB\""));
        assertTrue(block(r, "memory-and-swap").contains("total_with_swap"));
        assertTrue(block(r, "memory-free").contains("      - free_with_cache: \"< 1MiB\""), "MemFree + Buffers + Cached, as LBNL counts free RAM");
        assertTrue(block(r, "memory-and-swap-free").contains("      - free_with_cache_and_swap: \"< 1MiB\""));
        assertEquals("net.interface", check(c, "net-ib0").use());
        assertEquals(Kind.REFUSED, entry(r, 10).kind(), "no maximum: LBNL fails on every node");
        assertEquals(List.of("mcelog", "--client"), check(c, "mcelog").with().get(COMMAND));
        Pattern over = Pattern.compile(String.valueOf(check(c, "mcelog").with().raw("output")), Pattern.MULTILINE);
        assertTrue(over.matcher("DIMM A1\ncorrected memory errors:\n\t325 total\n\t10 in 24h\nuncorrected memory errors:\n\t0 total\n\t0 in 24h\n").find());
        assertFalse(over.matcher("corrected memory errors:\n\t325 total\n\t9 in 24h\nuncorrected memory errors:\n\t0 total\n\t0 in 24h\n").find(),
                "9 corrected in 24 h is LBNL's limit, not over it");
        assertTrue(over.matcher("corrected memory errors:\n\t0 total\n\t0 in 24h\nuncorrected memory errors:\n\t1 total\n\t1 in 24h\n").find());
    }

    @Test
    void checkHwIbPassesOnOneActivePortAtExactlyTheRateAsLbnlDoes() {
        LbnlImporter.Result r = imported("""
                * || check_hw_ib 400 mlx5_0:1
                * || check_hw_ib 40
                * || check_hw_ib
                * || check_hw_ib 100 mlx5_0
                * || check_hw_ib 200 mlx5_3:2
                """);
        Config c = load(r);
        assertEquals("""
                  - name: ib-mlx5_0-400
                    use: ib.ports
                    with:
                      link_layer: any
                      rate: 400
                      exact_rate: true
                      devices: ["mlx5_0:1"]
                    warn: none
                    fail:
                      - ports_up: "< 1"
                      - umad_loaded: "false"
                    on_unknown: fail
                """, block(r, "ib-mlx5_0-400"));
        assertEquals(40L, check(c, "ib-40").with().raw("rate"));
        assertFalse(check(c, "ib").with().has("rate"), "no rate: any active port");
        assertEquals(Kind.REFUSED, entry(r, 4).kind(), "1.4.3 compares DEV with DEVICE:PORT: no port is 'mlx5_0'");
        assertTrue(entry(r, 4).reason().contains("write mlx5_0:1"), entry(r, 4).reason());
        assertNotNull(check(c, "ib-mlx5_3-2-200"));
    }

    @Test
    void processChecksMatchWhatPsShowsAndKeepTheServiceActionOffUntilAsked() {
        LbnlImporter.Result r = imported("""
                * || check_ps_service -u root sshd
                * || check_ps_service -u root -S -d 'sshd:' sshd
                * || check_ps_service -d chronyd -r chrony
                * || check_ps_service -c nscd
                * || check_ps_daemon munged munge
                * || check_ps_loadavg 24 20 16
                * || check_ps_loadavg $((2*HW_CORES))
                * || check_ps_service -m '*java*' tomcat
                * || check_ps_service -E '/usr/bin/stop-it' -f -d 'mmsysmon.py' mmsysmon
                * || check_ps_service -k -u nobody cryptominer
                """);
        Config c = load(r);
        CheckConfig sshd = check(c, "sshd-running");
        assertEquals("process", sshd.use());
        assertEquals(List.of("*sshd"), globs(sshd.with().raw("argv0")), "argv[0] ending in sshd, as LBNL's *$DAEMON");
        assertEquals("root", sshd.with().raw("user"));
        CheckConfig started = check(c, "sshd-running-2");
        assertEquals(List.of("*sshd:"), globs(started.with().raw("argv0")), "OpenSSH's 'sshd: /usr/sbin/sshd -D' title");
        assertEquals(List.of("/sbin/service", "sshd", "start"), started.with().get(ACTION));
        assertTrue(entry(r, 2).differences().get(0).contains("only with settings.run_actions: true"), entry(r, 2).toString());
        assertTrue(r.hasActions());
        assertEquals(List.of("/sbin/service", "chrony", "restart"), check(c, "chrony-running").with().get(ACTION));
        assertEquals(List.of("/bin/bash", "-c", "/sbin/service nscd stop ; sleep 2 ; /sbin/service nscd start"), check(c, "nscd-running").with().get(ACTION));
        assertEquals(List.of("*munged*"), globs(check(c, "munged-running").with().raw("cmdline")), "check_ps_daemon: anywhere in the command line");
        assertEquals("munge", check(c, "munged-running").with().raw("user"));
        assertTrue(block(r, "load").contains("    warn: none\n    fail:\n      - load1: \">= 24\"\n      - load5: \">= 20\"\n      - load15: \">= 16\""));
        assertEquals(Kind.REFUSED, entry(r, 7).kind());
        assertTrue(entry(r, 7).reason().contains("$HW_CORES"), entry(r, 7).reason());
        assertEquals(List.of("*java*"), globs(check(c, "tomcat-running").with().raw("argv0")));
        CheckConfig mmsysmon = check(c, "mmsysmon-not-running");
        assertEquals("absent", mmsysmon.with().raw("state"));
        assertEquals(List.of("*mmsysmon.py"), globs(mmsysmon.with().raw("cmdline")), "-f matches the whole command line");
        assertEquals(Kind.CARRIED_OVER, entry(r, 10).kind(), "-k kills by pid");
        assertFalse(Pattern.compile("(?m)^ +run_actions:").matcher(YamlWriter.write(r)).find(), "the import never turns actions on");
        assertTrue(YamlWriter.write(r).contains("which this config leaves off: nhc changes nothing on the node unasked"));
    }

    private static final dev.nhc.probe.ParamSpec<java.util.Map<String, Object>> ENV = dev.nhc.probe.ParamSpec.map("env", "variables");

    /** The line a carried-over check has LBNL NHC evaluate. */
    private static String line(CheckConfig carried) {
        return String.valueOf(carried.with().get(ENV).get(LbnlImporter.LINE_VARIABLE));
    }

    private static final dev.nhc.probe.ParamSpec<List<String>> ACTION = dev.nhc.probe.ParamSpec.texts("action", "argv");

    private static List<String> globs(Object raw) {
        return raw instanceof List<?> l ? l.stream().map(p -> dev.nhc.checks.Globs.show((Pattern) p)).toList()
                : List.of(dev.nhc.checks.Globs.show((Pattern) raw));
    }

    @Test
    void fileChecksTestTheTypeAccessModeOwnerAndAge() {
        LbnlImporter.Result r = imported("""
                * || check_file_contents /etc/passwd "/^root:x:0:0:/" "daemon:*"
                * || check_file_contents /etc/passwd '!/^toor:/'
                * || check_file_test -r -w -x -d -k /tmp /var/tmp
                * || check_file_test -c -r -w /dev/null
                * || check_file_test -N /var/log/messages
                * || check_file_stat -m 0666 -u 0 -g 0 -t 1 -T 3 /dev/null
                * || check_file_stat -n 7200 /var/log/messages
                """);
        Config c = load(r);
        CheckConfig root = check(c, "etc-passwd-contents-1");
        assertEquals("^[ \\t]*root:x:0:0:", String.valueOf(root.with().raw("contains")));
        String glob = String.valueOf(check(c, "etc-passwd-contents-2").with().raw("contains"));
        assertTrue(Pattern.compile(glob, Pattern.MULTILINE).matcher("x\n  daemon:x:1:1::/:/sbin/nologin\n").find(), glob);
        assertEquals(Kind.CARRIED_OVER, entry(r, 2).kind(), "a negated match");
        assertTrue(block(r, "tmp-file").contains("""
                      - exists: "false"
                      - readable: "false"
                      - writable: "false"
                      - executable: "false"
                      - type: "!= directory"
                      - mode: "!~ ^[1357]"
                """), block(r, "tmp-file"));
        assertNotNull(check(c, "var-tmp-file"));
        assertTrue(block(r, "dev-null-file").contains("      - type: \"!= char-device\""));
        assertEquals(Kind.CARRIED_OVER, entry(r, 5).kind(), "-N has no file probe field");
        assertTrue(block(r, "dev-null-stat").contains("""
                      - mode: "!= 0666"
                      - uid: "!= 0"
                      - gid: "!= 0"
                      - device_major: "!= 1"
                      - device_minor: "!= 3"
                """), block(r, "dev-null-stat"));
        assertTrue(block(r, "var-log-messages-stat").contains("      - age_seconds: \"> 7200s\""));
    }

    @Test
    void commandChecks() {
        LbnlImporter.Result r = imported("""
                * || check_cmd_status -t 1 -r 1 fail-probe
                * || check_cmd_output -m '/inet 10\\.1\\.2\\.3/' /sbin/ip addr show ib0
                * || check_cmd_output -t 10 -e '/usr/bin/nvidia-smi -L' -m '/^GPU [0-9]+:/'
                * || check_cmd_output -m '/a/' -m '/b/' /bin/true
                * || check_cmd_status -t 60 /bin/sleep 1
                * || check_cmd_output -t 2 -r 0 -m "/nv_peer_mem/" "/sbin/lsmod"
                * || check_cmd_output -m '!/LNetError/' '/bin/journalctl -b'
                * || check_dmi_data_match "BIOS Information: Version: 2.11.0"
                * || check_dmi_data_match -t "Memory Device" "*Speed: 2400 MHz"
                """);
        Config c = load(r);
        CheckConfig status = check(c, "fail-probe-exit");
        assertEquals(List.of("fail-probe"), status.with().get(COMMAND));
        assertEquals(1L, status.with().raw("exit_code"));
        assertEquals(java.time.Duration.ofSeconds(1), status.with().raw("timeout"));
        // LBNL reads the line with 'read' (no -r), which drops the backslashes: its regex is inet 10.1.2.3
        assertEquals("inet 10[^\\n]1[^\\n]2[^\\n]3", String.valueOf(check(c, "ip-output").with().raw("output")));
        assertTrue(entry(r, 2).differences().get(0).contains("stdout and stderr"));
        CheckConfig smi = check(c, "nvidia-smi-output");
        assertEquals(List.of("/usr/bin/nvidia-smi", "-L"), smi.with().get(COMMAND));
        assertEquals(java.time.Duration.ofSeconds(12), smi.timeout(), "a command limit of 10 s needs a longer check timeout");
        assertEquals(Kind.CARRIED_OVER, entry(r, 4).kind());
        assertEquals(Kind.REFUSED, entry(r, 5).kind(), "60 s > LBNL's TIMEOUT of 30 s");
        assertEquals("kernel.module", check(c, "nv_peer_mem-module").use(), "lsmod lists /proc/modules");
        assertTrue(block(r, "journalctl-b-output").contains("      - output_matches: \"true\""), "a negated match fails when a line matches");
        assertEquals(List.of("/bin/journalctl -b"), check(c, "journalctl-b-output").with().get(COMMAND),
                "quoted, it is one word: LBNL NHC runs a program of that name, which is not there, and fails; so does nhc");
        assertEquals(List.of("dmidecode", "-t", "0"), check(c, "dmi-bios-information").with().get(COMMAND));
        Pattern bios = Pattern.compile(String.valueOf(check(c, "dmi-bios-information").with().raw("output")), Pattern.MULTILINE);
        assertTrue(bios.matcher("BIOS Information\n\tVendor: Dell Inc.\n\tVersion: 2.11.0\n").find());
        assertFalse(bios.matcher("BIOS Information\n\tVersion: 2.11.1\n").find());
        assertEquals(List.of("dmidecode", "-t", "17"), check(c, "dmi-memory-device").with().get(COMMAND));
    }

    @Test
    void theGpuFunctionsSitesWriteBecomeNhcsGpuProbes() {
        LbnlImporter.Result r = imported("""
                * || check_gpu_count 8
                * || check_nvsmi_healthmon
                * || check_gpu_xid
                * || check_gpu_ecc 20000000 10000
                * || check_gpu_clock_throttling
                * || check_nvlink_status
                * || check_nv_pcie_link_width 16
                * || check_nv_retired_pages
                * || check_nv_dcgmi_diag
                * || check_xid_errors
                * || check_nv_healthmon
                * || check_ib_link_flapping
                * || check_ipoib_up ibp12s0
                * || check_ib_link_ber mlx5_0
                * || check_num_numa_nodes 8
                * || check_gpu_bw 48 335
                """);
        Config c = load(r);
        assertEquals(8L, check(c, "gpu-count").with().raw("count"));
        assertTrue(block(r, "gpu-count").contains("      - gpu_count: \"!= 8\""));
        assertEquals("gpu.inventory", check(c, "nvidia-smi").use());
        assertEquals("gpu.xid", check(c, "gpu-xid").use());
        assertTrue(entry(r, 3).differences().get(0).contains("once per XID"), entry(r, 3).toString());
        assertEquals("gpu.ecc", check(c, "gpu-ecc").use());
        assertEquals("gpu.memory-repair", check(c, "gpu-memory-repair").use());
        assertTrue(block(r, "gpu-clocks").contains("    fail: none\n    on_unknown: ignore"), "Azure's function only logs");
        assertEquals("gpu.nvlink", check(c, "nvlink").use());
        assertTrue(block(r, "gpu-pcie-width").contains("      - pcie_width: \"!= 16\""));
        assertEquals("gpu.memory-repair", check(c, "gpu-retired-pages").use());
        assertEquals("dcgm.diag", check(c, "dcgm-diag").use());
        assertEquals("journal", check(c, "gpu-xid-2").with().raw("log"));
        assertEquals(List.of("nvidia-healthmon", "-e", "-v"), check(c, "nvidia-healthmon").with().get(COMMAND));
        assertEquals("ib.ports", check(c, "ib-link-flapping").use());
        assertEquals(true, check(c, "ibp12s0-up").with().raw("up"));
        assertEquals(List.of("mlxlink", "-d", "mlx5_0", "-c"), check(c, "mlx5_0-ber").with().get(COMMAND));
        Pattern ber = Pattern.compile(String.valueOf(check(c, "mlx5_0-ber").with().raw("output")), Pattern.MULTILINE);
        assertTrue(ber.matcher("Effective Physical BER            : 15E-8\n").find(), "1.5e-7 is above 1e-9");
        assertFalse(ber.matcher("Effective Physical BER            : 15E-255\n").find());
        assertFalse(ber.matcher("Effective Physical BER            : 15E-12\n").find());
        assertTrue(block(r, "numa-nodes").contains("      - numa_nodes: \"!= 8\""));
        assertEquals(Kind.CARRIED_OVER, entry(r, 16).kind(), "a bandwidth benchmark of Azure's scripts");
    }

    @Test
    void hostMatchesBecomeHostgroupsNamedFromTheirPattern() {
        LbnlImporter.Result r = imported("""
                n0[1-4] || check_fs_free /scratch 10%
                {n[1-10],gpu01} || check_hw_cpuinfo 2
                !login* || check_ps_daemon slurmd root
                /^login/ || check_fs_free /home 1%
                /gpu|dgx/ || check_ps_daemon nv-hostengine
                /^gpu[0-9]+$/ || check_fs_free / 1%
                x*.nifl.fysik.dtu.dk || check_hw_ib 100
                /^s(has|gpu)/ || check_hw_physmem 128gb 128gb 5%
                /^sgpu0[1-5][01-02]/ || check_hw_cpuinfo 2 24 24
                *.nifl.fysik.dtu.dk || HOSTNAME=$HOSTNAME_S
                *.nifl.fysik.dtu.dk || TIMEOUT=120
                """);
        Config c = load(r);
        assertEquals(List.of("n0-1-4", "n1-10-gpu01", "login", "login-2", "gpu-dgx", "x-nifl-fysik-dtu-dk", "s-has-gpu"),
                List.copyOf(r.hostgroups().keySet()));
        CheckConfig scratch = check(c, "scratch-free");
        assertTrue(scratch.on().matches("n03"));
        assertFalse(scratch.on().matches("n05"));
        CheckConfig cpu = check(c, "cpus");
        assertTrue(cpu.on().matches("n05"), "LBNL's pdsh width is the end's: n05 is in {n[1-10]}");
        assertFalse(check(c, "slurmd-running").on().matches("login1"));
        assertTrue(check(c, "home-free").on().matches("login2"));
        CheckConfig nv = check(c, "nv-hostengine-running");
        assertTrue(nv.on().matches("gpu7") && nv.on().matches("bigdgx2") && !nv.on().matches("cpu1"));
        Entry regex = entry(r, 6);
        assertEquals(Kind.CARRIED_OVER, regex.kind(), "[0-9]+ has no exact nhc form: LBNL NHC's mcheck decides");
        assertEquals("mcheck \"$HOSTNAME\" '/^gpu[0-9]+$/' || exit 0; check_fs_free / 1%", line(check(c, regex.checks().get(0).name())));
        CheckConfig ib = check(c, "ib-100");
        assertTrue(ib.on().matches("x001", "x001.nifl.fysik.dtu.dk"), "a pattern with a domain sees the full host name");
        assertFalse(ib.on().matches("x001", "x001"));
        CheckConfig mem = check(c, "memory");
        assertTrue(mem.on().matches("shas0101") && mem.on().matches("sgpu0801") && !mem.on().matches("ssky01"), "a group of alternatives spelt out");
        assertTrue(entry(r, 9).checks().isEmpty(), "[01-02] is a range bash cannot compile: the line runs on no host");
        assertTrue(entry(r, 9).differences().get(0).contains("selects no host"));
        assertEquals(Kind.TRANSLATED, entry(r, 10).kind(), "HOSTNAME=$HOSTNAME_S changes no verdict");
        assertTrue(entry(r, 11).differences().get(0).contains("TIMEOUT=120 on these hosts only"));
    }

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
    void lbnlVariablesBecomeSettingsOrNotesAndCarriedOverChecksGetLbnlsTimeout() {
        LbnlImporter.Result r = imported("""
                * || export TIMEOUT=15
                * || export MARK_OFFLINE=0
                * || export NHC_RM=slurm
                * || HOSTNAME="$HOSTNAME_S"
                * || export MCELOG_MAX_CORRECTED_RATE=3
                * || check_hw_mcelog
                * || export NHC_RM=pbs
                gpu* || export NHC_CHECK_ALL=1
                * || NVIDIA_HEALTHMON_ARGS="-v"
                * || check_nv_healthmon
                * || check_cmd_status -t 20 /bin/true
                """);
        Config c = load(r);
        assertEquals(java.time.Duration.ofSeconds(15), c.settings().deadline());
        assertEquals(java.time.Duration.ofSeconds(10), c.settings().checkTimeout());
        assertTrue(entry(r, 2).notes().get(0).contains("--slurm"));
        assertEquals(Kind.CARRIED_OVER, entry(r, 5).kind());
        CheckConfig mcelog = check(c, "lbnl-hw-mcelog");
        assertEquals(List.of("/usr/sbin/nhc", "-e", "eval \"$NHC_IMPORTED_LINE\""), mcelog.with().get(COMMAND),
                "the line goes in the environment: on LBNL NHC's command line a process check would find it");
        assertEquals("export MCELOG_MAX_CORRECTED_RATE=3; check_hw_mcelog", line(mcelog));
        assertEquals(java.time.Duration.ofSeconds(15), mcelog.timeout(), "LBNL's own TIMEOUT, which the config set to 15 s");
        assertEquals(Kind.REFUSED, entry(r, 7).kind(), "nhc cannot tell PBS");
        assertEquals(Kind.REFUSED, entry(r, 8).kind(), "settings are for every host");
        assertEquals(List.of("nvidia-healthmon", "-v"), check(c, "nvidia-healthmon").with().get(COMMAND), "NVIDIA_HEALTHMON_ARGS as set");
        assertEquals(Kind.REFUSED, entry(r, 11).kind(), "20 s > TIMEOUT=15");
        CheckConfig byDefault = check(load(imported("* || check_hw_gm myri0\n")), "lbnl-hw-gm-myri0");
        assertEquals(java.time.Duration.ofSeconds(30), byDefault.timeout(), "LBNL NHC's 30 s watchdog, not nhc's 10 s");
    }

    @Test
    void linesLbnlNhcSkipsAreAccountedForAndSaidOnStderr() {
        String conf = """
                # a comment
                   # an indented comment

                * || check_fs_free / 3%
                check_fs_free / 5%
                * ||
                * || my_site_check --quick
                * || check_fs_free / 5% ; echo hi
                NVIDIA_HEALTHMON=dcgmi
                * || check_fs_free /tmp 5%""";
        LbnlImporter.Result r = imported(conf);
        assertEquals(List.of(4, 5, 6, 7, 8, 9, 10), r.entries().stream().map(e -> e.line().number()).toList());
        Entry noBars = entry(r, 5);
        assertEquals(Kind.TRANSLATED, noBars.kind());
        assertTrue(noBars.checks().isEmpty());
        assertTrue(noBars.differences().get(0).contains("no '||'"), noBars.toString());
        assertTrue(entry(r, 9).differences().get(0).contains("no '||'"), "a setting without '||' never takes effect in LBNL NHC");
        assertTrue(entry(r, 7).reason().contains("not one of LBNL NHC's check functions"));
        assertTrue(entry(r, 8).reason().contains("more than one simple command"), entry(r, 8).reason());
        assertTrue(entry(r, 10).differences().get(0).contains("does not end with a newline"), entry(r, 10).toString());
        assertNotNull(load(r));
    }

    @Test
    void awkwardTextCannotBreakTheYaml() {
        // a continued line, quotes, '#', ': ' and a control character inside a carried-over line
        LbnlImporter.Result r = imported("* || check_dmi_data_match -t \"Memory Device\" -n \\\n  \"*Speed: 4800 MT/s # \\\"x\\\"\"\n"
                + "* || check_dmi_data_match 'a\u0007b: c'\n");
        Config c = load(r);
        // read drops the backslashes and joins the continued line; eval's word splitting collapses the blanks
        assertEquals("check_dmi_data_match -t \"Memory Device\" -n \"*Speed: 4800 MT/s # \"x\"\"", line(c.checks().get(0)));
        assertEquals("check_dmi_data_match 'a\u0007b: c'", line(c.checks().get(1)));
        assertEquals(2, c.checks().size());
        assertFalse(YamlWriter.write(r).contains("\u0007"));
    }

    @Test
    void hwCoresIsTheCountAnEarlierCpuinfoLineForEveryHostRequires() {
        LbnlImporter.Result r = imported("""
                * || check_ps_loadavg $((4*$HW_CORES))
                * || check_hw_cpuinfo 2 28 56
                * || check_ps_loadavg $((4*$HW_CORES)) $((2*$HW_CORES))
                """);
        assertEquals(Kind.REFUSED, entry(r, 1).kind(), "before any check_hw_cpuinfo LBNL NHC's HW_CORES is 0");
        assertEquals(Kind.TRANSLATED, entry(r, 3).kind());
        assertTrue(block(r, "load").contains("      - load1: \">= 112\"\n      - load5: \">= 56\"\n"), block(r, "load"));
        assertTrue(entry(r, 3).notes().get(0).contains("line 2"), entry(r, 3).notes().toString());
        assertTrue(entry(r, 3).differences().get(0).contains("only on a node that line already fails"), entry(r, 3).differences().toString());
        LbnlImporter.Result some = imported("""
                node* || check_hw_cpuinfo 2 28 56
                * || check_ps_loadavg $((4*$HW_CORES))
                """);
        assertEquals(Kind.REFUSED, entry(some, 2).kind(), "a cpuinfo check on some hosts only pins nothing for the others");
        LbnlImporter.Result two = imported("""
                * || check_hw_cpuinfo 2 28 56
                * || check_hw_cpuinfo 2 32 64
                * || check_ps_loadavg $((4*$HW_CORES))
                """);
        assertEquals(Kind.REFUSED, entry(two, 3).kind(), "two lines that cannot both pass pin nothing");
        LbnlImporter.Result dynamic = imported("""
                * || check_hw_cpuinfo 2 28 56
                * || check_hw_cpuinfo 2 $CORES
                * || check_ps_loadavg $((4*$HW_CORES))
                """);
        assertEquals(Kind.REFUSED, entry(dynamic, 3).kind(), "a cpuinfo line with counts known only when it runs unpins them");
    }

    @Test
    void aNodesSysconfigGivesTheValuesLbnlNhcWouldExpand() {
        Sysconfig sys = Sysconfig.parse("/etc/sysconfig/nhc", "NHC_CORES=32\nNHC_ETH0=eth0\nNHC_TMP_FS=tmpfs\nNHC_GPUS=8\n");
        String conf = """
                * || check_hw_eth $NHC_ETH0
                * || check_fs_mount_rw -t $NHC_TMP_FS -f /tmp
                * || check_ps_loadavg $((${NHC_LOADAVG_MULTIPLIER:-2}*$NHC_CORES))
                * || if [ ! -z ${NHC_IB_DEV+x} ]; then check_hw_eth $NHC_IB_DEV; fi
                * || if [ ! -z "${NHC_ETH0+x}" ]; then check_hw_eth $NHC_ETH0; fi
                * || check_group_member -g $NHC_GROUP
                * || check_nvsmi_healthmon $NHC_GPUS
                """;
        LbnlImporter.Result without = imported(conf);
        assertEquals(7, without.count(Kind.CARRIED_OVER), "without the node's file the values are known only on the node");
        LbnlImporter.Result r = new LbnlImporter("/usr/sbin/nhc", sys).importConfig("site.conf", conf);
        Config c = load(r);
        assertTrue(block(r, "net-eth0").contains("      name: eth0\n"), block(r, "net-eth0"));
        assertEquals(List.of("$NHC_ETH0 is eth0 in /etc/sysconfig/nhc"), entry(r, 1).notes().subList(0, 1));
        assertTrue(entry(r, 1).fromSysconfig());
        assertTrue(block(r, "tmp-mount-rw").contains("tmpfs"), block(r, "tmp-mount-rw"));
        assertTrue(block(r, "load").contains("      - load1: \">= 64\""), "the default of an unset multiplier, times the file's cores");
        assertEquals(Kind.TRANSLATED, entry(r, 4).kind());
        assertTrue(entry(r, 4).checks().isEmpty(), "the file does not set NHC_IB_DEV: LBNL NHC runs nothing");
        assertEquals(1, entry(r, 5).checks().size());
        assertEquals(Kind.CARRIED_OVER, entry(r, 6).kind(), "a site function nhc does not know");
        assertEquals("check_group_member -g $NHC_GROUP", line(check(c, entry(r, 6).checks().get(0).name())),
                "carried over as written: LBNL NHC reads the node's own file when it runs");
        assertEquals(Kind.CARRIED_OVER, entry(r, 7).kind(), "LBNL 1.4.3 ignores the argument, VUB's fork counts GPUs with it");
    }
}
