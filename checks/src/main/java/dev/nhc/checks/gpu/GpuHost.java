package dev.nhc.checks.gpu;

import dev.nhc.probe.ProbeContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The GPUs one probe judges on this host, by vendor: the vendors whose GPUs were found (with their
 * GPUs), the vendors that are simply not here (and why nhc thinks so), and the vendors whose GPUs
 * are here but cannot be read (a fault: the library failed, the driver is not loaded, opening hung).
 *
 * <p>A vendor is absent when its library says there is nothing (not installed under its usual
 * name, driver not loaded, no GPU counted) and the PCI bus does not show its GPUs either; a
 * library that a config names explicitly and that cannot be loaded is a fault, not an absence.
 * Not installed and no GPU counted are absences even when the bus cannot be read; a driver that
 * is not loaded is a fault unless the bus is readable and shows none of that vendor's GPUs.
 */
public final class GpuHost {
    private final Set<GpuVendor> supported;
    private final List<Found> present;
    private final Map<GpuVendor, String> absent;
    private final List<Failed> failed;

    /** A vendor whose GPUs are here: its source and the GPUs it lists. */
    public record Found(GpuSource source, List<GpuDevice> devices) {
    }

    /** A vendor whose GPUs cannot be read at all, and why. */
    public record Failed(GpuVendor vendor, GpuSourceException why) {
    }

    private GpuHost(Set<GpuVendor> supported, List<Found> present, Map<GpuVendor, String> absent, List<Failed> failed) {
        this.supported = supported;
        this.present = List.copyOf(present);
        this.absent = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(absent));
        this.failed = List.copyOf(failed);
    }

    /**
     * Opens every supported vendor's library (they open in parallel: each backend starts its own)
     * and sorts the vendors into present, absent and failed. A library the config does not name is
     * not loaded on a host whose PCI bus shows none of its vendor's GPUs: an NVIDIA node pays
     * nothing for AMD, nor an AMD node for NVIDIA.
     */
    static GpuHost open(ProbeContext ctx, Set<GpuVendor> supported, List<GpuBackend> backends) {
        List<GpuSource> sources = new ArrayList<>();
        Map<GpuVendor, String> absent = new java.util.EnumMap<>(GpuVendor.class);
        for (GpuBackend b : backends) {
            if (!supported.contains(b.vendor())) {
                continue;
            }
            if (!b.configured(ctx) && PciGpus.seen(ctx, b.vendor()) == PciGpus.Seen.NONE) {
                absent.put(b.vendor(), "no " + b.vendor().displayName() + " GPU on the PCI bus");
            } else {
                sources.add(b.open(ctx));
            }
        }
        List<Found> present = new ArrayList<>();
        List<Failed> failed = new ArrayList<>();
        for (GpuSource s : sources) {
            GpuVendor v = s.vendor();
            try {
                List<GpuDevice> devices = s.devices();
                if (devices.isEmpty() && PciGpus.seen(ctx, v) != PciGpus.Seen.SOME) {
                    absent.put(v, s.description() + " reports no GPUs");
                } else {
                    present.add(new Found(s, devices));
                }
            } catch (GpuSourceException e) {
                PciGpus.Seen bus = e.absence() == GpuSourceException.Absence.NONE ? PciGpus.Seen.SOME : PciGpus.seen(ctx, v);
                boolean gone = switch (e.absence()) {
                    case NONE -> false;
                    case NOT_INSTALLED -> bus != PciGpus.Seen.SOME;
                    case DRIVER_NOT_LOADED -> bus == PciGpus.Seen.NONE;
                };
                if (gone) {
                    absent.put(v, e.absentReason());
                } else {
                    failed.add(new Failed(v, e));
                }
            }
        }
        return new GpuHost(supported, present, absent, failed);
    }

    /** A replayed capture: its vendor is the only one, present when the probe supports it. */
    static GpuHost replay(GpuSource capture, Set<GpuVendor> supported) {
        if (!supported.contains(capture.vendor())) {
            return new GpuHost(supported, List.of(), Map.of(capture.vendor(), capture.description() + " is of "
                    + capture.vendor().displayName() + " GPUs"), List.of());
        }
        List<GpuDevice> devices;
        try {
            devices = capture.devices();
        } catch (GpuSourceException e) {
            return new GpuHost(supported, List.of(), Map.of(), List.of(new Failed(capture.vendor(), e)));
        }
        return new GpuHost(supported, List.of(new Found(capture, devices)), Map.of(), List.of());
    }

    public List<Found> present() {
        return present;
    }

    /** The vendors whose GPUs cannot be read, and why. */
    public List<Failed> failed() {
        return failed;
    }

    /** No supported vendor's GPUs are here, and nothing failed: a probe has nothing to judge. */
    public boolean nothingHere() {
        return present.isEmpty() && failed.isEmpty();
    }

    /** "no AMD GPUs here (AMD SMI is not installed: …)": why {@link #nothingHere()}. */
    public String whyNothing() {
        List<String> why = new ArrayList<>();
        absent.forEach((v, reason) -> why.add(reason));
        return "no " + GpuVendor.names(supported) + " GPUs here" + (why.isEmpty() ? "" : " (" + String.join("; ", why) + ")");
    }

    /** Every GPU of the present vendors, vendor by vendor, each in its library's index order. */
    public List<GpuDevice> devices() {
        List<GpuDevice> out = new ArrayList<>();
        present.forEach(f -> out.addAll(f.devices()));
        return out;
    }

    /** "550.54.15" or, on a host with both vendors' GPUs, "NVIDIA 550.54.15, AMD 6.8.5"; null when none is known. */
    public String driverVersion() throws GpuSourceException {
        List<String> versions = new ArrayList<>();
        for (Found f : present) {
            String v = f.source().driverVersion();
            if (v != null) {
                versions.add(present.size() > 1 ? f.source().vendor().displayName() + " " + v : v);
            }
        }
        return versions.isEmpty() ? null : String.join(", ", versions);
    }

    /** The vendors present, by name ("NVIDIA", "AMD", "NVIDIA, AMD"); null when none is. */
    public String vendors() {
        List<String> names = present.stream().map(f -> f.source().vendor().displayName()).toList();
        return names.isEmpty() ? null : String.join(", ", names);
    }
}
