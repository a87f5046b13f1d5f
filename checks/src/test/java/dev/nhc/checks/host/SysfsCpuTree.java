package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes /sys/devices/system/cpu for a node of {@code sockets × coresPerSocket × threadsPerCore}
 * CPUs, numbered as x86 kernels do (all first threads, then all second threads), with the sibling
 * lists holding only online CPUs, as the kernel keeps them.
 */
final class SysfsCpuTree {
    private final int sockets;
    private final int coresPerSocket;
    private final int threadsPerCore;
    private boolean olderKernelNames;
    private boolean withTopology = true;

    SysfsCpuTree(int sockets, int coresPerSocket, int threadsPerCore) {
        this.sockets = sockets;
        this.coresPerSocket = coresPerSocket;
        this.threadsPerCore = threadsPerCore;
    }

    /** thread_siblings_list / core_siblings_list instead of core_cpus_list / package_cpus_list (kernels before 5.x). */
    SysfsCpuTree olderKernelNames() {
        this.olderKernelNames = true;
        return this;
    }

    /** No topology directories at all, as in some containers. */
    SysfsCpuTree withoutTopology() {
        this.withTopology = false;
        return this;
    }

    int cpus() {
        return sockets * coresPerSocket * threadsPerCore;
    }

    private int socketOf(int cpu) {
        return (cpu % (sockets * coresPerSocket)) / coresPerSocket;
    }

    private int coreOf(int cpu) {
        return cpu % (sockets * coresPerSocket);
    }

    void write(TestProbeContext ctx, BitSet online) throws IOException {
        String base = CpuProbe.CPU;
        ctx.write(base + "/present", "0-" + (cpus() - 1) + "\n");
        ctx.write(base + "/possible", "0-" + (cpus() - 1) + "\n");
        ctx.write(base + "/online", list(online) + "\n");
        BitSet offline = new BitSet();
        offline.set(0, cpus());
        offline.andNot(online);
        ctx.write(base + "/offline", list(offline) + "\n");
        boolean smtOn = threadsPerCore > 1 && online.stream().anyMatch(c -> c >= sockets * coresPerSocket);
        ctx.write(base + "/smt/active", smtOn ? "1\n" : "0\n");
        ctx.write(base + "/smt/control", threadsPerCore == 1 ? "notsupported\n" : smtOn ? "on\n" : "off\n");
        for (int cpu = 0; cpu < cpus(); cpu++) {
            String dir = base + "/cpu" + cpu;
            if (cpu > 0) {
                ctx.write(dir + "/online", online.get(cpu) ? "1\n" : "0\n");
            }
            if (!withTopology || !online.get(cpu)) {
                // The kernel removes an offline CPU's topology directory.
                ctx.write(dir + "/uevent", "");
                continue;
            }
            BitSet core = new BitSet();
            BitSet pkg = new BitSet();
            for (int other = online.nextSetBit(0); other >= 0; other = online.nextSetBit(other + 1)) {
                if (coreOf(other) == coreOf(cpu)) {
                    core.set(other);
                }
                if (socketOf(other) == socketOf(cpu)) {
                    pkg.set(other);
                }
            }
            String t = dir + "/topology/";
            ctx.write(t + "physical_package_id", socketOf(cpu) + "\n");
            ctx.write(t + "core_id", (coreOf(cpu) % coresPerSocket) + "\n");
            ctx.write(t + (olderKernelNames ? "thread_siblings_list" : "core_cpus_list"), list(core) + "\n");
            ctx.write(t + (olderKernelNames ? "core_siblings_list" : "package_cpus_list"), list(pkg) + "\n");
        }
    }

    BitSet all() {
        BitSet b = new BitSet();
        b.set(0, cpus());
        return b;
    }

    /** /proc/cpuinfo for the same node, each block as long as a real x86 one. */
    String cpuinfo(BitSet online) {
        StringBuilder sb = new StringBuilder();
        for (int cpu = online.nextSetBit(0); cpu >= 0; cpu = online.nextSetBit(cpu + 1)) {
            sb.append("processor\t: ").append(cpu).append('\n')
                    .append("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n")
                    .append("model name\t: AMD EPYC 7763 64-Core Processor\nstepping\t: 1\nmicrocode\t: 0xa0011d1\n")
                    .append("cpu MHz\t\t: 2450.000\ncache size\t: 512 KB\n")
                    .append("physical id\t: ").append(socketOf(cpu)).append('\n')
                    .append("siblings\t: ").append(coresPerSocket * threadsPerCore).append('\n')
                    .append("core id\t\t: ").append(coreOf(cpu) % coresPerSocket).append('\n')
                    .append("cpu cores\t: ").append(coresPerSocket).append('\n')
                    .append("apicid\t\t: ").append(cpu).append("\ninitial apicid\t: ").append(cpu).append('\n')
                    .append("fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 16\nwp\t\t: yes\n")
                    .append("flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 invpcid_single hw_pstate ssbd mba ibrs ibpb stibp vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local clzero irperf xsaveerptr rdpru wbnoinvd amd_ppin arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter pfthreshold v_vmsave_vmload vgif v_spec_ctrl umip pku ospke vaes vpclmulqdq rdpid overflow_recov succor smca fsrm\n")
                    .append("bugs\t\t: sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass srso\n")
                    .append("bogomips\t: 4900.00\nTLB size\t: 2560 4K pages\nclflush size\t: 64\ncache_alignment\t: 64\n")
                    .append("address sizes\t: 48 bits physical, 48 bits virtual\npower management: ts ttp tm hwpstate cpb eff_freq_ro [13] [14]\n\n");
        }
        return sb.toString();
    }

    static String list(BitSet cpus) {
        List<String> parts = new ArrayList<>();
        int i = cpus.nextSetBit(0);
        while (i >= 0) {
            int end = cpus.nextClearBit(i) - 1;
            parts.add(end == i ? Integer.toString(i) : i + "-" + end);
            i = cpus.nextSetBit(end + 1);
        }
        return parts.stream().collect(Collectors.joining(","));
    }
}
