package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.TemperatureThreshold;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.Map;

/**
 * {@code gpu.thermal}: GPU and memory temperature against the GPU's own thresholds, and the
 * hardware clock events (HW slowdown, HW thermal slowdown, HW power brake).
 *
 * <p>A clock-event bit is an instant's state; DCGM warns on violation time accumulating over its
 * window, gpud when events fill 60 % of ten minutes, NVSentinel after 3 consecutive polls. One
 * run alone therefore does not warn: {@code hw_slowdown_runs} counts the consecutive runs (kept in
 * the state) that saw a HW bit, and the default rule warns from the third. A config that wants
 * the instant can say {@code warn: {hw_slowdown: true}}.
 */
public final class GpuThermalProbe implements Probe {
    static final long HW_SLOWDOWN = 0x8L;
    static final long SW_THERMAL = 0x20L;
    static final long HW_THERMAL = 0x40L;
    static final long HW_POWER_BRAKE = 0x80L;

    private static final ProbeSpec SPEC = ProbeSpec.builder("gpu.thermal",
                    "GPU and memory temperature against the GPU's slowdown / shutdown / max-operating thresholds; HW slowdown, HW thermal and HW power-brake clock events")
            .entities("one per GPU (GPU <index>)")
            .field("gpu", Unit.TEXT, "the GPU as messages name it: GPU 3 (0000:3b:00.0)")
            .field("pci_bus_id", Unit.TEXT, "PCI bus id")
            .field("temperature", Unit.CELSIUS, "GPU temperature")
            .field("memory_temperature", Unit.CELSIUS, "HBM temperature")
            .field("shutdown_temperature", Unit.CELSIUS, "the GPU's shutdown threshold")
            .field("slowdown_temperature", Unit.CELSIUS, "the GPU's slowdown threshold")
            .field("gpu_max_temperature", Unit.CELSIUS, "the GPU's max operating temperature")
            .field("memory_max_temperature", Unit.CELSIUS, "the memory's max operating temperature")
            .field("shutdown_margin", Unit.CELSIUS, "degrees below the shutdown threshold")
            .field("slowdown_margin", Unit.CELSIUS, "degrees below the slowdown threshold")
            .field("gpu_max_margin", Unit.CELSIUS, "degrees below the max operating temperature")
            .field("memory_max_margin", Unit.CELSIUS, "memory: degrees below its max operating temperature")
            .field("clocks_event_reasons", Unit.COUNT, "the clock event reason bit mask")
            .field("hw_slowdown", Unit.BOOLEAN, "HW slowdown active (clocks cut by half or more)")
            .field("hw_thermal_slowdown", Unit.BOOLEAN, "HW thermal slowdown active")
            .field("hw_power_brake", Unit.BOOLEAN, "HW power brake active (asserted by the system's power supply)")
            .field("sw_thermal_slowdown", Unit.BOOLEAN, "the driver slows the clocks to stay under the max operating temperature")
            .field("hw_slowdown_runs", Unit.COUNT, "consecutive runs, this one included, that saw a HW slowdown, HW thermal or HW power-brake event")
            .rule(DefaultRule.fail(Map.of("shutdown_margin", "<= 0"),
                    "{gpu}: at {temperature}, at or above its shutdown temperature {shutdown_temperature}").remedy(Remedy.HARDWARE))
            .rule(DefaultRule.warn(Map.of("slowdown_margin", "<= 0"),
                    "{gpu}: at {temperature}, at or above its slowdown temperature {slowdown_temperature}"))
            .rule(DefaultRule.warn(Map.of("gpu_max_margin", "< 0"),
                    "{gpu}: at {temperature}, above its max operating temperature {gpu_max_temperature}"))
            .rule(DefaultRule.warn(Map.of("memory_max_margin", "< 0"),
                    "{gpu}: memory at {memory_temperature}, above its max operating temperature {memory_max_temperature}"))
            .rule(DefaultRule.warn(Map.of("hw_slowdown_runs", ">= 3"),
                    "{gpu}: hardware clock slowdown in {hw_slowdown_runs} consecutive runs (hw_slowdown {hw_slowdown}, thermal {hw_thermal_slowdown}, power brake {hw_power_brake}); check cooling and power supply"))
            .timeoutFails()
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        return GpuScan.run(ctx, GpuData.THERMAL, false, (gpu, out) -> {
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
            Long reasons = gpu.clocksEventReasons();
            if (reasons != null) {
                boolean hw = (reasons & HW_SLOWDOWN) != 0;
                boolean hwThermal = (reasons & HW_THERMAL) != 0;
                boolean brake = (reasons & HW_POWER_BRAKE) != 0;
                out.put("clocks_event_reasons", reasons).put("hw_slowdown", hw).put("hw_thermal_slowdown", hwThermal)
                        .put("hw_power_brake", brake).put("sw_thermal_slowdown", (reasons & SW_THERMAL) != 0);
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
