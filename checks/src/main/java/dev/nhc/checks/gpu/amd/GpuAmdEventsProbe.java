package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.BootLatches;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code gpu.amd-events}: AMD SMI's GPU events, which the daemon's watcher queues
 * ({@link AmdGpuEvents}), judged as {@code gpu.xid} judges NVIDIA's XID events. A GPU reset
 * (amdgpu recovering a hung or fatally failing GPU: its jobs, and those on its XGMI hive, are
 * killed) fails and stays failing until reboot or {@code nhc clear}; a ring hang (a job stalled a
 * GPU engine and was stopped) warns for the run that saw it. Thermal throttling only makes the
 * daemon re-run {@code gpu.thermal}, and a VM fault is the job's own.
 *
 * <p>The events reach nhc only in the daemon; a one-shot run judges what is latched and is
 * otherwise skipped — the kernel log's amdgpu patterns ({@code kernel.log}) see resets there.
 */
public final class GpuAmdEventsProbe implements Probe {
    static final Entity EVENTS = Entity.of(Entity.Kind.DEVICE, "amd-smi-events", "AMD SMI events");
    private static final String STAYS = " — stays failing until reboot or `nhc clear {check}`";

    private static final ProbeSpec SPEC = BootLatches.fields(ProbeSpec.builder("gpu.amd-events",
                    "AMD SMI's GPU events in the daemon (GPU reset, ring hang, thermal throttle, VM fault): a reset stays failing "
                            + "until reboot or nhc clear, a ring hang warns")
                    .tags(Tags.GPU, GpuVendor.AMD.tag(), Tags.DRIVER)
                    .entities(Entity.Kind.GPU, "one per AMD GPU with events (GPU <index> with its PCI bus id), and \"AMD SMI events\" "
                            + "for the reading itself")
                    .field("gpu", Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
                    .field("vendor", Unit.TEXT, "who made the GPU: AMD")
                    .field("pci_bus_id", Unit.TEXT, "PCI bus id, e.g. 0000:3b:00.0")
                    .field("gpu_resets", Unit.COUNT, "GPU resets amdgpu reported since boot (or nhc clear)")
                    .field("resets", Unit.TEXT, "the resets: how many, the first and last time, the library's last message")
                    .field("ring_hangs", Unit.COUNT, "ring hangs amdgpu reported this run")
                    .field("thermal_events", Unit.COUNT, "thermal throttling events this run (gpu.thermal judges the GPU's state)")
                    .field("vm_faults", Unit.COUNT, "GPU page faults this run (a job's own error; not judged)")
                    .field("events", Unit.COUNT, "AMD SMI events: how many the daemon's watcher reported since the last run")
                    .field("events_dropped", Unit.COUNT, "AMD SMI events: how many the daemon dropped unread since the last run "
                            + "(the oldest, beyond " + AmdGpuEvents.LIMIT + " waiting)")
                    .reportedFor(Entity.Kind.GPU, "gpu", "vendor", "pci_bus_id", "gpu_resets", "resets", "ring_hangs", "thermal_events",
                            "vm_faults")
                    .reportedFor(Entity.Kind.DEVICE, "events", "events_dropped")
                    .optional("gpu_resets", "resets")
                    .rule(DefaultRule.fail(Map.of("gpu_resets", "> 0"), "{gpu}: reset by amdgpu ({resets}): the jobs on it, and on its "
                            + "XGMI hive, were killed; if resets recur the GPU needs service" + STAYS).remedy(Remedy.REBOOT).latches())
                    .rule(DefaultRule.warn(Map.of("events_dropped", "> 0"), "{events_dropped} AMD SMI {events_dropped|event was|events were} "
                            + "dropped before the check read {events_dropped|it|them}: a GPU reset among them shows in the kernel log "
                            + "(kernel.log's amdgpu patterns)"))
                    .rule(DefaultRule.warn(Map.of("ring_hangs", "> 0"), "{gpu}: {ring_hangs} ring {ring_hangs|hang|hangs} this run: "
                            + "amdgpu stopped a job that stalled the GPU")),
            "AMD SMI events", "latched GPU resets", "GPU resets of this boot", "the kernel log (kernel.log's amdgpu patterns)")
            .reportedFor(Entity.Kind.DEVICE, "state_lost")
            .optional(BootLatches.OPTIONAL_FIELDS).build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** {@code nhc clear}: forget the latched resets. */
    @Override
    public void clear(ProbeState state) {
        for (String key : state.snapshot().keySet()) {
            state.remove(key);
        }
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        ProbeState state = ctx.state();
        String boot = KernelLogReader.bootId(ctx);
        AmdResetLatches latches = AmdResetLatches.load(state, boot);
        AmdGpuEvents queue = ctx.service(AmdGpuEvents.class).orElse(null);
        List<AmdGpuEvents.Event> events = queue == null ? List.of() : queue.drain();
        long dropped = queue == null ? 0 : queue.takeDropped();
        if (events.isEmpty() && (queue == null || queue.watched() == 0) && latches.all().isEmpty() && !latches.lost()) {
            return ProbeResult.skipped(queue == null ? "AMD SMI's GPU events reach nhc in the daemon only (nhc daemon watches them); "
                    + "in a one-shot run kernel.log's amdgpu patterns see GPU resets" : "no AMD GPU events are watched here (no AMD GPUs)");
        }
        Map<String, Observation.Builder> byGpu = new LinkedHashMap<>();
        Map<String, long[]> counts = new LinkedHashMap<>();     // ring hangs, thermal events, VM faults this run
        for (AmdGpuEvents.Event e : events) {
            String key = e.pciBusId() != null ? e.pciBusId() : "gpu" + e.gpu();
            gpu(byGpu, key, e.gpu() < 0 ? null : e.gpu(), e.pciBusId());
            long[] c = counts.computeIfAbsent(key, k -> new long[3]);
            switch (e.type()) {
                case GPU_PRE_RESET -> latches.reset(e.pciBusId(), e.gpu() < 0 ? null : e.gpu(), e.at().toString(), e.message());
                case RING_HANG -> c[0]++;
                case THERMAL_THROTTLE -> c[1]++;
                case VMFAULT -> c[2]++;
                case GPU_POST_RESET -> {
                    // the reset was counted when it began
                }
            }
        }
        for (AmdResetLatches.Latch l : latches.all()) {
            gpu(byGpu, l.key(), l.gpu(), l.pci()).put("gpu_resets", l.count()).put("resets", detail(l));
        }
        counts.forEach((key, c) -> byGpu.get(key).put("ring_hangs", c[0]).put("thermal_events", c[1]).put("vm_faults", c[2]));
        latches.save(state, boot);
        List<Observation> out = new ArrayList<>();
        out.add(latches.observeLoss(Observation.of(EVENTS)).put("events", (long) events.size()).put("events_dropped", dropped).build());
        byGpu.values().forEach(b -> out.add(b.build()));
        return new ProbeResult(out, null);
    }

    /** The GPU's observation: by index and address when known, else by address alone. */
    private static Observation.Builder gpu(Map<String, Observation.Builder> byGpu, String key, Integer index, String pci) {
        return byGpu.computeIfAbsent(key, k -> {
            Entity e = index != null ? Entity.gpu(index, pci) : pci != null ? Entity.gpuAtPci(pci)
                    : new Entity(Entity.Kind.GPU, "unknown", "a GPU AMD SMI could not name", null);
            String label = index == null ? e.label() : "GPU " + index + (pci == null ? "" : " (" + pci + ")");
            return Observation.of(e).put("gpu", label).put("vendor", GpuVendor.AMD.displayName()).put("pci_bus_id", pci);
        });
    }

    /** "1 reset at 2026-…Z: <message>", "3 resets, first at …, last at …". */
    private static String detail(AmdResetLatches.Latch l) {
        String when = l.count() == 1 ? "1 reset at " + l.first() : l.count() + " resets, first at " + l.first() + ", last at " + l.last();
        return l.message() == null ? when : when + ": " + l.message();
    }
}
