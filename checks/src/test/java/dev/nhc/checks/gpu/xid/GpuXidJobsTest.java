package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogFiles;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whose fault an XID is (issue 18 item 6): an application XID names the process, nhc finds its
 * Slurm job from /proc/PID/cgroup (under the test's root), names the job, counts jobs per GPU and
 * escalates when one GPU has them under two jobs; a storm that follows one job stays that job's.
 *
 * <p>The XID 31 line is the one in https://github.com/doitsujin/dxvk/issues/1799 (driver 450.80.02,
 * no name= field); the line with name= is gpud's, components/memory/testdata/dmesg.decode.iso.log
 * (leptonai/gpud @ 4a8de33a3f02e207f39e9023d67125592d599731), with the XID number and GPU changed
 * where a test needs another; the cgroup lines are Slurm's own examples (doc/html/cgroup_v2.shtml
 * at SchedMD/slurm 284c3b95) and the v1 layout of src/plugins/cgroup/v1/xcgroup.c.
 */
class GpuXidJobsTest {
    private static final String LOG = KernelLogFiles.LOG;
    private static final String XID = "- { name: xid, use: gpu.xid, with: { log: " + LOG + " } }";
    /** https://github.com/doitsujin/dxvk/issues/1799 */
    private static final String MMU_FAULT = "Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=%d, Ch 0000003b, intr 00000000. "
            + "MMU Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n";

    @TempDir
    Path root;
    private final GpuXidProbe probe = new GpuXidProbe();

    @BeforeEach
    void bootId() throws IOException {
        KernelLogFiles.bootId(root);
    }

    private Pipeline pipeline() {
        return new Pipeline(root, probe).settings("nvml_library: " + root.resolve("no-nvml/libnvidia-ml.so.1"));
    }

    private void log(String text) throws IOException {
        KernelLogFiles.append(root, text);
    }

    private void process(long pid, String cgroup) throws IOException {
        Path p = root.resolve("proc/" + pid + "/cgroup");
        Files.createDirectories(p.getParent());
        Files.writeString(p, cgroup);
    }

    private static Finding gpu(Verdict v, String pci) {
        return Pipeline.findings(v, "xid").stream().filter(f -> f.entity().label().equals("GPU at PCI " + pci)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding for " + pci + " in " + Pipeline.findings(v, "xid")));
    }

    private static Observation observed(Verdict v, String pci) {
        return Pipeline.result(v, "xid").observations().stream().filter(o -> o.entity().label().equals("GPU at PCI " + pci))
                .findFirst().orElseThrow();
    }

    @Test
    void slurmsCgroupPathsNameTheJob() {
        assertEquals(Optional.of("4242"), SlurmCgroup.job("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n"));
        assertEquals(Optional.of("4242"), SlurmCgroup.job("0::/system.slice/gamba1_slurmstepd.scope/job_4242/step_batch/user/task_0\n"));
        assertEquals(Optional.of("s5K1KKYAYG5D00"), SlurmCgroup.job("0::/system.slice/slurmstepd.scope/s5K1KKYAYG5D00/step_0/user/task_0\n"),
                "Slurm 26.05 names the job's cgroup by its SLUID unless CgroupJobIdPaths=yes");
        assertEquals(Optional.of("77"), SlurmCgroup.job("12:pids:/slurm/uid_1000/job_77/step_0/task_0\n"
                + "4:memory:/slurm/uid_1000/job_77/step_0/task_0\n1:name=systemd:/system.slice/slurmd.service\n"));
        assertEquals(Optional.of("77"), SlurmCgroup.job("4:memory:/slurm_node7/uid_1000/job_77/step_extern/task_0\n"));
        assertEquals(Optional.empty(), SlurmCgroup.job("0::/system.slice/slurmstepd.scope/system\n"), "a stepd waiting for its job");
        assertEquals(Optional.empty(), SlurmCgroup.job("0::/user.slice/user-1000.slice/session-3.scope\n"));
        assertEquals(Optional.empty(), SlurmCgroup.job("0::/system.slice/docker-4f1e.scope\n"));
    }

    @Test
    void anApplicationXidNamesItsJobAndOneJobIsTheJobsFault() throws Exception {
        process(12890, "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
        log(String.format(MMU_FAULT, 12890));
        Verdict v = pipeline().run(XID);
        Finding f = gpu(v, "0000:c1:00.0");
        assertEquals(Severity.WARN, f.severity(), "DCGM's memory health warns on 31; one job's fault does not drain");
        assertTrue(f.message().contains("XID 31 (GPU memory page fault) in Slurm job 4242 (pid 12890) at "), f.message());
        assertEquals(1L, observed(v, "0000:c1:00.0").get("xid_jobs"));
        assertEquals("4242", observed(v, "0000:c1:00.0").get("jobs"));
    }

    @Test
    void theSameGpuUnderTwoJobsIsTheGpusFaultAndStaysFailing() throws Exception {
        process(12890, "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
        log(String.format(MMU_FAULT, 12890));
        assertEquals(Severity.WARN, pipeline().run(XID).checks().get(0).severity());

        process(13001, "0::/system.slice/slurmstepd.scope/job_4243/step_0/user/task_0\n");
        log(String.format(MMU_FAULT, 13001));
        Verdict v = pipeline().run(XID);
        Finding f = gpu(v, "0000:c1:00.0");
        assertEquals(Severity.FAIL, f.severity(), f.message());
        assertEquals(Remedy.HARDWARE, f.remedy(), "NVIDIA's XID 31 workflow: repeated faults on the same GPU, run diagnostics");
        assertNull(f.slurmState(), "a drain: a passing field diag may clear it");
        assertTrue(f.message().contains("XID 31 (GPU memory page fault)") && f.message().contains("under 2 Slurm jobs (4242, 4243) within 24h"),
                f.message());
        assertEquals(2L, observed(v, "0000:c1:00.0").get("xid_jobs"));

        Verdict next = pipeline().run(XID);
        assertEquals(Severity.FAIL, gpu(next, "0000:c1:00.0").severity(), "latched until reboot or nhc clear");
    }

    @Test
    void aStormThatFollowsOneJobAcrossEveryGpuIsThatJobs() throws Exception {
        process(2924364, "0::/system.slice/slurmstepd.scope/job_555/step_0/user/task_0\n");
        StringBuilder lines = new StringBuilder();
        for (String bus : List.of("38", "3b", "5e", "af")) {
            // gpud components/memory/testdata/dmesg.decode.iso.log, as XID 13 on each GPU
            lines.append("kern  :warn  : 2025-01-21T04:41:44,287197+00:00 NVRM: Xid (PCI:0000:").append(bus)
                    .append(":00): 13, pid=2924364, name=pt_main_thread, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address\n");
        }
        log(lines.toString());
        Verdict first = pipeline().run(XID);
        log(lines.toString());
        Verdict v = pipeline().run(XID);
        assertEquals(Severity.PASS, Pipeline.severity(first, "xid"), Pipeline.findings(first, "xid").toString());
        assertEquals(Severity.PASS, Pipeline.severity(v, "xid"), "one job on every GPU is the job's fault: " + Pipeline.findings(v, "xid"));
        assertEquals(1L, observed(v, "0000:5e:00.0").get("xid_jobs"));
        assertTrue(((String) observed(v, "0000:5e:00.0").get("xids")).contains("XID 13 (Graphics Engine Exception) in Slurm job 555 (pid 2924364)"),
                String.valueOf(observed(v, "0000:5e:00.0").get("xids")));
    }

    /** NVIDIA's XID 31 workflow: repeat faults on different GPUs are the application's. */
    @Test
    void jobsFaultingOnSeveralGpusAreTheApplicationsNotOneGpus() throws Exception {
        String a = "[1.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=%d, name=a.out, Ch 0000003b, intr 00000000. MMU Fault\n";
        String b = "[1.0] NVRM: Xid (PCI:0000:5e:00): 31, pid=%d, name=a.out, Ch 0000003b, intr 00000000. MMU Fault\n";
        for (int job = 1; job <= 2; job++) {
            process(100 + job, "0::/system.slice/slurmstepd.scope/job_" + job + "/step_0/user/task_0\n");
            process(200 + job, "0::/system.slice/slurmstepd.scope/job_" + (10 + job) + "/step_0/user/task_0\n");
        }
        log(String.format(a, 101) + String.format(b, 201));
        pipeline().run(XID);
        log(String.format(a, 102) + String.format(b, 202));
        Verdict v = pipeline().run(XID);
        assertEquals(Severity.WARN, Pipeline.severity(v, "xid"), "a buggy program run as job after job, on whichever GPU: "
                + Pipeline.findings(v, "xid"));
        assertEquals(2L, observed(v, "0000:3b:00.0").get("xid_jobs"));
        assertEquals(2L, observed(v, "0000:5e:00.0").get("xid_jobs"));
    }

    @Test
    void aProcessThatIsGoneLeavesTheXidJudgedButNotAttributed() throws Exception {
        log(String.format(MMU_FAULT, 12890) + String.format(MMU_FAULT, 12891).replace("11:28:11", "11:29:00"));
        Verdict v = pipeline().run(XID);
        Finding f = gpu(v, "0000:c1:00.0");
        assertEquals(Severity.WARN, f.severity());
        assertTrue(f.message().contains("in pid 12890, in no Slurm job or no longer running, pid 12891, in no Slurm job or no longer running"),
                f.message());
        assertEquals(0L, observed(v, "0000:c1:00.0").get("xid_jobs"));
    }

    @Test
    void thePidIsReadWhereTheDriverPutsItNotFromTheNameTheUserChose() throws Exception {
        process(12890, "0::/system.slice/slurmstepd.scope/job_1/step_0/user/task_0\n");
        process(999, "0::/system.slice/slurmstepd.scope/job_2/step_0/user/task_0\n");
        log("[5.0] NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, name=x, pid=999, Ch 0000003b, intr 00000000. MMU Fault\n");
        Verdict v = pipeline().run(XID);
        Finding f = gpu(v, "0000:c1:00.0");
        assertTrue(f.message().contains("in Slurm job 1 (pid 12890)"), f.message());
        assertEquals("1", observed(v, "0000:c1:00.0").get("jobs"));
    }

    /** gpud components/accelerator/nvidia/xid/kmsg_extended_test.go: NVLink5 lines name a process too. */
    @Test
    void anNvlink5LinesSeverityIsItsTailNotWordsInTheProcessName() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0008:01:00): 145, pid=11436, name=cache_mgr_main, RLW_SRC_TRACK Nonfatal XC1 i0 Link 03 "
                + "(0x040868e2 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)\n"
                + "[1.1] NVRM: Xid (PCI:0018:01:00): 145, pid=11437, name=Fatal, RLW_SRC_TRACK Nonfatal XC1 i0 Link 03 "
                + "(0x040868e2 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)\n"
                + "[1.2] NVRM: Xid (PCI:0028:01:00): 145, pid=11438, name=ok, RLW_REMAP Fatal XC1 i0 Link 04 (0x040868e2 0x00000040)\n");
        Verdict v = pipeline().run(XID);
        assertEquals(Severity.WARN, gpu(v, "0008:01:00.0").severity());
        assertEquals(Severity.WARN, gpu(v, "0018:01:00.0").severity(), "a process named Fatal does not make the error fatal");
        assertEquals(Severity.FAIL, gpu(v, "0028:01:00.0").severity());
    }

    @Test
    void jobsOlderThanTheWindowAndDamagedEntriesDoNotCount() throws Exception {
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        long old = Instant.now().minus(Duration.ofHours(30)).toEpochMilli();
        store.section("check.xid").put(XidJobs.KEY, List.of(
                Map.of("gpu", "0000:c1:00", "job", "4000", "xid", 31L, "at", old),
                Map.of("gpu", "0000:c1:00", "job", "../../etc", "xid", 31L, "at", Instant.now().toEpochMilli()),
                Map.of("gpu", "0000:c1:00", "job", "4001", "xid", "31", "at", Instant.now().toEpochMilli())));
        store.flush();
        process(12890, "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
        log(String.format(MMU_FAULT, 12890));
        Verdict v = pipeline().run(XID);
        Finding f = gpu(v, "0000:c1:00.0");
        assertEquals(Severity.WARN, f.severity(), f.message());
        assertEquals("4242", observed(v, "0000:c1:00.0").get("jobs"));

        // With a window of 48h the job of 30 hours ago counts: two jobs.
        process(12891, "0::/system.slice/slurmstepd.scope/job_4242/step_1/user/task_0\n");
        store = new StateStore(root.resolve("var/lib/nhc"));
        store.section("check.xid").put(XidJobs.KEY, List.of(Map.of("gpu", "0000:c1:00", "job", "4000", "xid", 31L, "at", old)));
        store.flush();
        log(String.format(MMU_FAULT, 12891));
        Finding wide = gpu(pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + ", application_window: 48h } }"), "0000:c1:00.0");
        assertEquals(Severity.FAIL, wide.severity(), wide.message());
        assertTrue(wide.message().contains("under 2 Slurm jobs (4000, 4242) within 48h"), wide.message());
    }
}
