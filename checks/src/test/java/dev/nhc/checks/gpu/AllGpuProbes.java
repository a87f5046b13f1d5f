package dev.nhc.checks.gpu;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;

import java.util.ArrayList;
import java.util.List;

/** Runs every GPU probe once against a context and judges the results with their default rules. */
public final class AllGpuProbes {

    public static final List<Probe> PROBES = List.of(new GpuInventoryProbe(), new GpuEccProbe(), new GpuMemoryRepairProbe(),
            new GpuPcieProbe(), new GpuNvlinkProbe(), new GpuThermalProbe(), new GpuPowerProbe());

    /** The verdict of one pass: findings (PASS excluded) and the probes that were skipped. */
    public record Outcome(List<Finding> findings, List<String> skipped) {
        public Severity severity() {
            return DefaultRules.worst(findings);
        }

        public List<Finding> at(Severity s) {
            return findings.stream().filter(f -> f.severity() == s).toList();
        }
    }

    private AllGpuProbes() {
    }

    public static Outcome run(ProbeContext ctx) throws Exception {
        List<Finding> findings = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Probe p : PROBES) {
            ProbeResult r = p.probe(ctx);
            if (r.skipped() != null) {
                skipped.add(p.spec().name());
                continue;
            }
            for (Finding f : DefaultRules.judge(p.spec(), r)) {
                if (f.severity() != Severity.PASS) {
                    findings.add(f.withCheck(p.spec().name()));
                }
            }
        }
        return new Outcome(findings, skipped);
    }
}
