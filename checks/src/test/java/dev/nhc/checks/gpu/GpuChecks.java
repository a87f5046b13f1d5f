package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.GpuCapture;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;

import java.nio.file.Path;
import java.util.List;

/**
 * The GPU probes judged as {@code nhc run} judges them ({@link Pipeline}): on the project's fake
 * libnvidia-ml, or on a parsed capture as {@code nhc replay} feeds it. Each check is named after
 * its probe, so findings say which probe made them.
 */
public final class GpuChecks {

    private GpuChecks() {
    }

    public static Probe[] probes() {
        return new Probe[]{new GpuInventoryProbe(), new GpuEccProbe(), new GpuMemoryRepairProbe(), new GpuPcieProbe(),
            new GpuNvlinkProbe(), new GpuThermalProbe(), new GpuPowerProbe()};
    }

    /** Every GPU probe against the fake NVML (whose scenario {@link FakeNvml#use} sets), with the fake AMD SMI installed too. */
    public static Pipeline onFakeNvml(Path root) {
        return FakeGpus.pipeline(root, probes());
    }

    /** The probes that read every vendor's GPUs: {@link #probes()} with gpu.links for gpu.nvlink. */
    public static Probe[] anyVendorProbes() {
        return new Probe[]{new GpuInventoryProbe(), new GpuEccProbe(), new GpuMemoryRepairProbe(), new GpuPcieProbe(),
            new GpuLinksProbe(), new GpuThermalProbe(), new GpuPowerProbe()};
    }

    /** Every GPU probe, gpu.links too, on a node whose libraries are both fakes (each test says whose GPUs are there). */
    public static Pipeline onFakeGpus(Path root) {
        Probe[] nvidia = probes();
        Probe[] all = java.util.Arrays.copyOf(nvidia, nvidia.length + 1);
        all[nvidia.length] = new GpuLinksProbe();
        return FakeGpus.pipeline(root, all);
    }

    /** Every GPU probe reading this capture instead of NVML, as a replay does. */
    public static Pipeline onCapture(Path root, GpuCapture capture) {
        return new Pipeline(root, probes()).service(GpuSource.class, new CaptureGpuSource(capture));
    }

    /** One check per GPU probe, named as its probe; the {@code with:} maps of gpu.inventory and gpu.nvlink ("" for none). */
    public static String everyCheck(String inventoryWith, String nvlinkWith) {
        StringBuilder b = new StringBuilder();
        for (Probe p : probes()) {
            String name = p.spec().name();
            String with = name.equals("gpu.inventory") ? inventoryWith : name.equals("gpu.nvlink") ? nvlinkWith : "";
            b.append("- { name: ").append(name).append(", use: ").append(name)
                    .append(with.isBlank() ? "" : ", with: " + with).append(" }\n");
        }
        return b.toString();
    }

    /** A single check of {@code probe} named as the probe, with this {@code with:} map ("" for none). */
    public static String check(String probe, String with) {
        return "- { name: " + probe + ", use: " + probe + (with.isBlank() ? "" : ", with: " + with) + " }\n";
    }

    public static List<Finding> at(Verdict v, Severity s) {
        return v.findings(s);
    }

    /** The checks the run skipped (a capture without their data). */
    public static List<String> skipped(Verdict v) {
        return v.checks().stream().filter(c -> c.status() == CheckStatus.SKIPPED).map(c -> c.name()).toList();
    }
}
