package dev.nhc.daemon;

import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NhcMetricsTest {
    private static final Instant T0 = Instant.parse("2026-11-22T04:00:00Z");

    /** Series of one gauge as "label=value,…" (sorted, constant labels included) → value. */
    private static Map<String, Double> series(MetricSnapshots all, String name) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot m : all) {
            if (m.getMetadata().getName().equals(name)) {
                for (DataPointSnapshot p : m.getDataPoints()) {
                    StringBuilder key = new StringBuilder();
                    p.getLabels().forEach(l -> key.append(key.length() == 0 ? "" : ",").append(l.getName()).append('=').append(l.getValue()));
                    out.put(key.toString(), ((GaugeSnapshot.GaugeDataPointSnapshot) p).getValue());
                }
            }
        }
        return out;
    }

    private static MetricSnapshots collect(Verdict v) {
        DaemonStatus s = new DaemonStatus(v, Map.of(), T0, List.of(), 0, 0, 0);
        return new NhcMetrics(dev.nhc.engine.policy.SeverityPolicy.STANDARD, () -> s, () -> Map.of("dstack_fleet_name", "f"), out -> { }).collect();
    }

    private static CheckResult check(String name, String probe, List<Finding> findings, List<Observation> obs) {
        List<Finding> fs = findings.stream().map(f -> f.withCheck(name)).toList();
        return new CheckResult(name, probe, Set.of(), CheckStatus.COMPLETED, SeverityPolicy.STANDARD.ofFindings(fs), 5, fs, obs, null);
    }

    private static Finding finding(Entity e, Severity s, String message, Remedy r) {
        return new Finding(null, e, s, message, r, null, Map.of());
    }

    @Test
    void findingsAreCountedByCheckSeverityAndRemedyWithTheGpuTheyAreAbout() {
        Entity root = Entity.of(Entity.Kind.MOUNT, "/");
        Verdict v = SeverityPolicy.STANDARD.verdict("n", T0, 9, List.of(
                check("ecc", "gpu.ecc", List.of(
                        finding(Entity.gpu(1, "0000:19:00.0"), Severity.FAIL, "uncorrected", Remedy.RESET_GPU),
                        finding(Entity.gpu(2, "0000:3b:00.0"), Severity.FAIL, "uncorrected", Remedy.RESET_GPU),
                        finding(Entity.gpu(2, "0000:3b:00.0"), Severity.WARN, "corrected rate", Remedy.NONE)), List.of()),
                check("root", "disk.usage", List.of(
                        finding(root, Severity.FAIL, "full", Remedy.NONE),
                        finding(root, Severity.FAIL, "inodes full", Remedy.NONE),
                        finding(root, Severity.PASS, "mounted", Remedy.NONE)), List.of()),
                check("quiet", "memory", List.of(), List.of())));

        Map<String, Double> f = series(collect(v), "nhc_findings");

        assertEquals(Map.of(
                "check=ecc,dstack_fleet_name=f,gpu=1,probe=gpu.ecc,remedy=reset-gpu,severity=fail", 1.0,
                "check=ecc,dstack_fleet_name=f,gpu=2,probe=gpu.ecc,remedy=reset-gpu,severity=fail", 1.0,
                "check=ecc,dstack_fleet_name=f,gpu=2,probe=gpu.ecc,remedy=none,severity=warn", 1.0,
                "check=root,dstack_fleet_name=f,probe=disk.usage,remedy=none,severity=fail", 2.0), f,
                "pass findings and checks without findings add no series; a non-GPU finding has no gpu label");
    }

    @Test
    void gpuObservationsAreLabelledByTheEntitysGpuIndexAndOtherEntitiesAreLeftOut() {
        Verdict v = SeverityPolicy.STANDARD.verdict("n", T0, 9, List.of(
                check("xid", "gpu.xid", List.of(finding(Entity.gpu(1, "0000:3b:00.0"), Severity.FAIL, "XID 79", Remedy.REBOOT),
                                finding(Entity.gpuAtPci("0000:5e:00.0"), Severity.FAIL, "XID 48", Remedy.RESET_GPU)),
                        List.of(Observation.of(Entity.gpu(1, "0000:3b:00.0")).put("xid_latched", 1L).put("xid_new", 3L).build(),
                                Observation.of(Entity.gpuAtPci("0000:5e:00.0")).put("xid_latched", 1L).build(),
                                Observation.of(Entity.of(Entity.Kind.LOG, "kernel log")).put("lines_read", 10L).build()))));

        MetricSnapshots all = collect(v);
        Map<String, Double> gpu = series(all, "nhc_gpu_observation");
        assertEquals(1.0, gpu.get("check=xid,dstack_fleet_name=f,field=xid_latched,gpu=1"), gpu.toString());
        assertEquals(3.0, gpu.get("check=xid,dstack_fleet_name=f,field=xid_new,gpu=1"), gpu.toString());
        assertTrue(gpu.keySet().stream().noneMatch(k -> k.contains("lines_read")), "the kernel log is not a GPU: " + gpu);
        assertEquals(2, gpu.keySet().stream().filter(k -> k.startsWith("check=xid,")).count(),
                "a GPU known only by its PCI address has no index to label: " + gpu);

        Map<String, Double> f = series(all, "nhc_findings");
        assertEquals(1.0, f.get("check=xid,dstack_fleet_name=f,gpu=1,probe=gpu.xid,remedy=reboot,severity=fail"), f.toString());
        assertEquals(1.0, f.get("check=xid,dstack_fleet_name=f,probe=gpu.xid,remedy=reset-gpu,severity=fail"), f.toString());
    }
}
