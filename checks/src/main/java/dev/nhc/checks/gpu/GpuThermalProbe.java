package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.checks.gpu.GpuDevice.Throttle;
import dev.nhc.checks.gpu.GpuDevice.ThrottleKind;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.List;
import java.util.Map;

/**
 * {@code gpu.thermal}: GPU and memory temperature against the GPU's own thresholds, and the
 * hardware clock events (HW slowdown, HW thermal slowdown, HW power brake; AMD's PROCHOT, VR and
 * HBM thermal violations, see {@link ThrottleKind}).
 *
 * <p>A hardware clock event cuts the clocks by half or more: the GPU is degraded for as long as
 * it lasts, and the power brake is asserted from outside the GPU (the system's power supply), so
 * one sample (or one capture) that shows it warns, naming the reason in the vendor's words. {@code hw_slowdown_runs}
 * counts the consecutive runs that saw one (kept in the state), for a site that would rather warn
 * only when it persists ({@code warn: {hw_slowdown_runs: ">= 3"}}, as NVSentinel's three polls).
 */
public final class GpuThermalProbe implements Probe {
    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.thermal",
                    "GPU and memory temperature against the GPU's slowdown / shutdown / max-operating thresholds; "
                            + "HW slowdown, HW thermal and HW power-brake clock events", Tags.THERMAL)
            .field("temperature", Unit.CELSIUS, "GPU temperature (AMD: the hotspot, i.e. junction temperature)")
            .field("memory_temperature", Unit.CELSIUS, "HBM temperature")
            .field("shutdown_temperature", Unit.CELSIUS, "the GPU's shutdown threshold (AMD: its emergency temperature)")
            .field("slowdown_temperature", Unit.CELSIUS, "the GPU's slowdown threshold (AMD: its critical temperature)")
            .field("gpu_max_temperature", Unit.CELSIUS, "the GPU's max operating temperature (NVIDIA)")
            .field("memory_max_temperature", Unit.CELSIUS, "the memory's max operating temperature (AMD: the HBM's critical temperature)")
            .field("shutdown_margin", Unit.CELSIUS, "degrees below the shutdown threshold")
            .field("slowdown_margin", Unit.CELSIUS, "degrees below the slowdown threshold")
            .field("gpu_max_margin", Unit.CELSIUS, "degrees below the max operating temperature")
            .field("memory_max_margin", Unit.CELSIUS, "memory: degrees below its max operating temperature")
            .field("clocks_event_reasons", Unit.COUNT, "NVIDIA: the clock event reason bit mask")
            .field("clocks_event_reason_names", Unit.TEXT, "the active clock event (throttle) reasons in the vendor's words, e.g. idle, or PPT; 'none' when there are none")
            .field("hw_slowdown_reasons", Unit.TEXT, "the active hardware clock events by name, e.g. HW slowdown (HW power brake); "
                    + "'none' when there are none")
            .field("hw_slowdown", Unit.BOOLEAN, "HW slowdown active (clocks cut by half or more; AMD: PROCHOT or a voltage regulator too hot)")
            .field("hw_thermal_slowdown", Unit.BOOLEAN, "HW thermal slowdown active (AMD: HBM too hot)")
            .field("hw_power_brake", Unit.BOOLEAN, "HW power brake active (NVIDIA: asserted by the system's power supply)")
            .field("sw_thermal_slowdown", Unit.BOOLEAN, "the driver slows the clocks to stay under the max operating temperature (AMD: socket thermal)")
            .field("hw_slowdown_runs", Unit.COUNT, "consecutive runs, this one included, that saw a HW slowdown, HW thermal or HW power-brake event")
            // NVML answers NOT_SUPPORTED for what a GPU does not have, and rates need a previous run: absent, not judged.
            .optional("temperature", "memory_temperature", "shutdown_temperature", "slowdown_temperature",
                    "gpu_max_temperature", "memory_max_temperature", "shutdown_margin", "slowdown_margin", "gpu_max_margin",
                    "memory_max_margin", "clocks_event_reasons", "clocks_event_reason_names", "hw_slowdown_reasons",
                    "hw_slowdown", "hw_thermal_slowdown", "hw_power_brake", "sw_thermal_slowdown", "hw_slowdown_runs")
            .rule(DefaultRule.fail(Map.of("shutdown_margin", "<= 0"),
                    "{gpu}: at {temperature}, at or above its shutdown temperature {shutdown_temperature}").remedy(Remedy.HARDWARE))
            .rule(DefaultRule.warn(Map.of("slowdown_margin", "<= 0"),
                    "{gpu}: at {temperature}, at or above its slowdown temperature {slowdown_temperature}"))
            .rule(DefaultRule.warn(Map.of("gpu_max_margin", "< 0"),
                    "{gpu}: at {temperature}, above its max operating temperature {gpu_max_temperature}"))
            .rule(DefaultRule.warn(Map.of("memory_max_margin", "< 0"),
                    "{gpu}: memory at {memory_temperature}, above its max operating temperature {memory_max_temperature}"))
            .rule(DefaultRule.warn(List.of(Map.of("hw_slowdown", true), Map.of("hw_thermal_slowdown", true), Map.of("hw_power_brake", true)),
                    "{gpu}: clocks cut by {hw_slowdown_reasons}; check the cooling and the power supply"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        return GpuScan.run(ctx, SPEC, GpuData.THERMAL, (gpu, out) -> {
            Long temp = gpu.temperature();
            Long memTemp = gpu.memoryTemperature();
            out.put("temperature", temp).put("memory_temperature", memTemp);
            Long shutdown = gpu.temperatureThreshold(TemperatureThreshold.SHUTDOWN);
            Long slowdown = gpu.temperatureThreshold(TemperatureThreshold.SLOWDOWN);
            Long gpuMax = gpu.temperatureThreshold(TemperatureThreshold.GPU_MAX);
            Long memMax = gpu.temperatureThreshold(TemperatureThreshold.MEM_MAX);
            out.put("shutdown_temperature", shutdown).put("slowdown_temperature", slowdown)
                    .put("gpu_max_temperature", gpuMax).put("memory_max_temperature", memMax);
            out.put("shutdown_margin", margin(shutdown, temp)).put("slowdown_margin", margin(slowdown, temp))
                    .put("gpu_max_margin", margin(gpuMax, temp)).put("memory_max_margin", margin(memMax, memTemp));
            Throttle throttle = gpu.throttle();
            if (throttle != null) {
                boolean hw = throttle.has(ThrottleKind.HW_SLOWDOWN);
                boolean hwThermal = throttle.has(ThrottleKind.HW_THERMAL);
                boolean brake = throttle.has(ThrottleKind.HW_POWER_BRAKE);
                out.put("clocks_event_reasons", throttle.vendorBits()).put("hw_slowdown", hw).put("hw_thermal_slowdown", hwThermal)
                        .put("hw_power_brake", brake).put("sw_thermal_slowdown", throttle.has(ThrottleKind.SW_THERMAL))
                        .put("clocks_event_reason_names", throttle.names()).put("hw_slowdown_reasons", throttle.hardware());
                String key = GpuEccProbe.key(gpu) + "/hw_slowdown_runs";
                long runs = hw || hwThermal || brake ? ctx.state().getLong(key, 0) + 1 : 0;
                ctx.state().put(key, runs);
                out.put("hw_slowdown_runs", runs);
            }
        });
    }

    private static Long margin(Long threshold, Long value) {
        return threshold == null || value == null || threshold == 0 ? null : threshold - value;
    }
}
