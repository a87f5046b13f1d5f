package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code kernel.module}: a module is loaded (from /proc/modules) or built into the kernel (a
 * /sys/module/NAME directory without {@code initstate}, which only loadable modules have).
 * Names compare with '-' and '_' alike, as modprobe does.
 */
public final class KernelModuleProbe implements Probe {
    private static final ProbeSpec SPEC = ProbeSpec.builder("kernel.module", "a kernel module is loaded (or built in), or is not")
            .entities("the module")
            .param(ParamSpec.required("name", ParamType.STRING, "module name, e.g. nvidia_uvm"))
            .param(ParamSpec.optional("loaded", ParamType.BOOLEAN, Boolean.TRUE, "whether it must be loaded"))
            .field("loaded", Unit.BOOLEAN, "loaded or built in")
            .field("builtin", Unit.BOOLEAN, "built into the kernel")
            .field("refcount", Unit.COUNT, "users of the module")
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Params p = ctx.params();
        String name = p.string("name").replace('-', '_');
        boolean want = !Boolean.FALSE.equals(p.bool("loaded"));
        Path modules = ctx.sys("/proc/modules");
        String state = null;
        Long refcount = null;
        boolean procReadable = true;
        try {
            for (String line : Files.readAllLines(modules, StandardCharsets.UTF_8)) {
                String[] f = line.split("\\s+");
                if (f.length >= 3 && f[0].replace('-', '_').equals(name)) {
                    state = f.length >= 5 ? f[4] : "Live";
                    try {
                        refcount = Long.parseLong(f[2]);
                    } catch (NumberFormatException ignored) {
                        // "-" when the kernel cannot unload modules
                    }
                }
            }
        } catch (NoSuchFileException e) {
            procReadable = false; // a kernel without module support: only built-ins exist
        } catch (IOException e) {
            return ProbeResult.builder().finding(Finding.of(name, Severity.UNKNOWN, "cannot read " + modules + ": " + e.getMessage())).build();
        }
        Path sysDir = ctx.sys("/sys/module/" + name);
        boolean builtin = state == null && Files.isDirectory(sysDir) && !Files.exists(sysDir.resolve("initstate"));
        if (!procReadable && !Files.isDirectory(ctx.sys("/sys/module"))) {
            return ProbeResult.builder().finding(Finding.of(name, Severity.UNKNOWN,
                    "cannot read " + modules + " nor " + ctx.sys("/sys/module"))).build();
        }
        boolean loaded = state != null || builtin;
        ProbeResult.Builder out = ProbeResult.builder().observe(Observation.of(name).put("loaded", loaded)
                .put("builtin", builtin).put("refcount", refcount).build());
        if (want && !loaded) {
            out.finding(Finding.of(name, Severity.FAIL, "kernel module " + name + " is not loaded"));
        } else if (want && state != null && !state.equals("Live")) {
            out.finding(Finding.of(name, Severity.WARN, "kernel module " + name + " is " + state));
        } else if (!want && loaded) {
            out.finding(Finding.of(name, Severity.FAIL, "kernel module " + name + " is " + (builtin ? "built into the kernel" : "loaded")
                    + " but should not be"));
        }
        return out.build();
    }
}
