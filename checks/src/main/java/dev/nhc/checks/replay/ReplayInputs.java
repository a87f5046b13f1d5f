package dev.nhc.checks.replay;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.dcgm.DcgmiOutputs;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.amd.AmdSmiCapture;
import dev.nhc.checks.gpu.amd.AmdSmiCaptureParser;
import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.CaptureParseException;
import dev.nhc.checks.gpu.capture.GpuCapture;
import dev.nhc.checks.gpu.capture.NvidiaSmiCapture;
import dev.nhc.checks.gpu.fabric.FabricManagerLogCapture;
import dev.nhc.checks.gpu.xid.PciToGpu;
import dev.nhc.checks.gpu.xid.XidEvent;
import dev.nhc.checks.kernel.KernelLogCapture;
import dev.nhc.checks.net.IbPortsSource;
import dev.nhc.checks.net.IbstatCapture;
import dev.nhc.checks.net.IbstatParser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The captures of one replay, read and put where the checks look for them: nvidia-smi output, or
 * amd-smi's and rocm-smi's, as the GPU probes' source, dcgmi output for the DCGM probes, a kernel log for {@code gpu.xid} and
 * {@code kernel.log}, ibstat for {@code ib.ports}, a fabric manager log for {@code gpu.fabric}.
 * Each capture is read by what it is ({@link CaptureKind}); what a capture holds that cannot be
 * read is left to the probes, which report it as "could not read". Only a file that is not there,
 * not text or too large is refused ({@link CaptureFile.Refused}), and so are captures that cannot
 * be of one node ({@link Mismatch}).
 */
public final class ReplayInputs {
    private final Path scratch;
    private GpuCapture gpu;
    private AmdSmiCapture amd;
    private String diag;
    private String diagSource;
    private String health;
    private String healthSource;
    private IbstatCapture ibstat;
    private Path kernelLog;
    private Path fabricLog;
    private final Set<String> feeds = new LinkedHashSet<>();
    private final List<String> notes = new ArrayList<>();

    /**
     * Captures that are each fine but cannot be replayed together (two nodes, two kernel logs), or an
     * amd-smi capture that cannot be read with confidence; the message says which.
     */
    public static final class Mismatch extends Exception {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    /** @param scratch a directory of the replay's own, where a capture read from a pipe is kept */
    public ReplayInputs(Path scratch) {
        this.scratch = scratch;
    }

    /**
     * The kind of the capture in {@code file}, from its content; empty when it is none nhc reads. A
     * pipe is copied into the scratch directory first (what is read from a pipe is gone), and
     * {@link #add} then reads that copy.
     */
    public Optional<CaptureKind> recognise(Path file) throws IOException {
        return Optional.ofNullable(CaptureKind.recognise(CaptureFile.head(readable(file), CaptureKind.HEAD_BYTES)));
    }

    private final Map<Path, Path> copies = new LinkedHashMap<>();

    /** The file itself, or for a pipe its bounded copy (made once). */
    private Path readable(Path file) throws IOException {
        if (Files.isRegularFile(file) || Files.isDirectory(file) || !Files.exists(file)) {
            return file;
        }
        Path copy = copies.get(file);
        if (copy == null) {
            copy = CaptureFile.log(file, Files.createDirectory(scratch.resolve("pipe-" + copies.size())));
            copies.put(file, copy);
        }
        return copy;
    }

    /**
     * Reads {@code file} as a capture of {@code kind}; {@code shown} names it in messages. A pipe
     * {@link #recognise(Path)} looked at is read from its copy; any other is read with the bound of
     * its kind.
     */
    public void add(CaptureKind kind, Path file, String shown) throws IOException, Mismatch {
        Path in = copies.getOrDefault(file, file);
        switch (kind) {
            case NVIDIA_SMI -> {
                GpuCapture c = NvidiaSmiCapture.parse(shown, CaptureFile.readText(in));
                try {
                    gpu = gpu == null ? c : gpu.merge(c);
                } catch (CaptureParseException e) {
                    throw new Mismatch(e.getMessage());
                }
            }
            case AMD_SMI -> {
                try {
                    AmdSmiCapture c = AmdSmiCaptureParser.parse(shown, CaptureFile.readText(in));
                    amd = amd == null ? c : amd.merge(c);
                } catch (CaptureParseException e) {
                    throw new Mismatch(e.getMessage());
                }
            }
            case DCGMI_DIAG -> {
                once(diag, "dcgmi diag", shown);
                diag = CaptureFile.readText(in);
                diagSource = shown;
            }
            case DCGMI_HEALTH -> {
                once(health, "dcgmi health", shown);
                health = CaptureFile.readText(in);
                healthSource = shown;
            }
            case IBSTAT -> {
                once(ibstat, "ibstat", shown);
                ibstat = IbstatParser.parse(in, shown);
            }
            case KERNEL_LOG -> {
                once(kernelLog, "kernel log", shown);
                kernelLog = CaptureFile.log(in, Files.createDirectory(scratch.resolve("kernel-log")));
                notes.add("replayed kernel log " + shown);
            }
            case FABRIC_MANAGER_LOG -> {
                once(fabricLog, "fabric manager log", shown);
                fabricLog = CaptureFile.log(in, Files.createDirectory(scratch.resolve("fabricmanager")));
                notes.add("replayed fabric manager log " + shown);
            }
        }
        if (gpu != null && amd != null) {
            throw new Mismatch("a replay judges one node's GPUs: give its nvidia-smi captures or its amd-smi captures, not both");
        }
        feeds.add(kind.feeds());
    }

    private static void once(Object already, String what, String shown) throws Mismatch {
        if (already != null) {
            throw new Mismatch("a replay takes one " + what + " capture; " + shown + " is a second one (replay them one at a time)");
        }
    }

    /** The tags of the checks these captures feed. */
    public Set<String> feeds() {
        return feeds;
    }

    /** What the probes read instead of the machine, by the type they ask for. */
    public Map<Class<?>, Object> services() {
        Map<Class<?>, Object> services = new LinkedHashMap<>();
        services.put(GpuSource.class, amd != null ? amd : gpu != null ? new CaptureGpuSource(gpu) : CaptureGpuSource.none());
        if (gpu != null) {
            Map<String, Integer> byPci = new LinkedHashMap<>();
            gpu.gpus().forEach(g -> {
                if (g.pciBusId() != null && g.index() >= 0) {
                    byPci.put(XidEvent.normalizePci(g.pciBusId()), g.index());
                }
            });
            PciToGpu pciToGpu = bus -> Optional.ofNullable(byPci.get(bus));
            services.put(PciToGpu.class, pciToGpu);
        }
        if (diag != null || health != null) {
            services.put(DcgmiOutputs.class, new DcgmiOutputs(health, diag, healthSource, diagSource));
        }
        if (kernelLog != null) {
            services.put(KernelLogCapture.class, new KernelLogCapture(kernelLog));
        }
        if (ibstat != null) {
            services.put(IbPortsSource.class, ibstat);
        }
        if (fabricLog != null) {
            services.put(FabricManagerLogCapture.class, new FabricManagerLogCapture(fabricLog));
        }
        return services;
    }

    /** One line per capture for the report: what was replayed, and what a capture lacks. */
    public List<String> notes() {
        List<String> out = new ArrayList<>();
        if (gpu != null) {
            int shown = gpu.gpus().size();
            out.add("replayed " + gpu.source() + " (" + shown + " GPU" + (shown == 1 ? "" : "s")
                    + (gpu.announced() != null && gpu.announced() > shown && gpu.gaps().isEmpty()
                            ? " of the " + gpu.announced() + " 'Attached GPUs' announces, as 'nvidia-smi -q -i' prints: the others are not judged" : "")
                    + (gpu.driverVersion() == null ? "" : ", driver " + gpu.driverVersion()) + ")");
            for (GpuCapture.Gap g : gpu.gaps()) {
                out.add("partial: " + g.text());
            }
        }
        if (amd != null) {
            int shown = amd.devices().size();
            out.add("replayed " + amd.source() + " (" + shown + " AMD GPU" + (shown == 1 ? "" : "s")
                    + (amd.driverVersion() == null ? "" : ", driver " + amd.driverVersion()) + ")");
        }
        out.addAll(notes);
        if (diag != null || health != null) {
            out.add("replayed dcgmi output " + (healthSource != null ? healthSource + " " : "") + (diagSource != null ? diagSource : ""));
        }
        if (ibstat != null) {
            out.add("replayed ibstat output " + ibstat.source() + " (" + ibstat.ports().size() + " port" + (ibstat.ports().size() == 1 ? "" : "s")
                    + "; ibstat prints no counters, so ib.ports flap rules are not judged)");
            for (String panic : ibstat.panics()) {
                out.add("ibstat reported: " + panic + " (judged the ports it printed)");
            }
        }
        return out;
    }
}
