package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code kernel.module}: a module is loaded (from /proc/modules) or built into the kernel (a
 * /sys/module/NAME directory without {@code initstate}, which only loadable modules have).
 * Names compare with '-' and '_' alike, as modprobe does.
 */
public final class KernelModuleProbe implements Probe {
    /** What modprobe accepts; anything else (a '/', "..") could only name a path outside /sys/module. */
    private static final Pattern MODULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    static final ParamSpec<String> NAME = ParamSpec.text("name", "module name, e.g. nvidia_uvm")
            .required()
            .check(n -> MODULE_NAME.matcher(n).matches() ? null : "'" + n + "' is not a module name such as nvidia_uvm (letters, digits, '_' and '-')");
    static final ParamSpec<Boolean> LOADED = ParamSpec.flag("loaded", "whether it must be loaded (true) or must not be (false)")
            .defaultValue(Boolean.TRUE);

    private static final ProbeSpec SPEC = ProbeSpec.builder("kernel.module",
                    "A kernel module is loaded (or built in), or with loaded: false is not. A module that is "
                            + "loading or unloading warns.")
            .tags(Tags.HOST)
            .entities(Entity.Kind.MODULE, "the module given by 'name', as 'kernel module nvidia_uvm' ('-' written as '_')")
            .param(NAME)
            .param(LOADED)
            .field("loaded", Unit.BOOLEAN, "loaded or built in")
            .field("builtin", Unit.BOOLEAN, "built into the kernel (cannot be unloaded)")
            .field("state", Unit.TEXT, "the state /proc/modules shows: Live, Loading or Unloading (absent for a built-in or absent module)")
            .field("refcount", Unit.COUNT, "users of the module")
            .optional("state", "refcount")
            .rule(DefaultRule.fail(Map.of("loaded", false), "{entity} is not loaded").when(LOADED.name(), true))
            .rule(DefaultRule.fail(Map.of("builtin", true), "{entity} is built into the kernel but should not be")
                    .when(LOADED.name(), false))
            .rule(DefaultRule.fail(Map.of("loaded", true), "{entity} is loaded but should not be").when(LOADED.name(), false))
            .rule(DefaultRule.warn(Map.of("state", "!= Live"), "{entity} is {state}").when(LOADED.name(), true))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        String name = NAME.get(ctx.params()).replace('-', '_');
        // Labelled for reports and Slurm reasons, which show the message alone: "kernel module nvidia_uvm is not loaded".
        Entity entity = Entity.of(Entity.Kind.MODULE, name, "kernel module " + name);
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
            return ProbeResult.of(Observation.unreadable(entity, "cannot read " + modules + ": " + SysFiles.reason(e)));
        }
        Path sysModule = ctx.sys("/sys/module");
        if (!procReadable && !Files.isDirectory(sysModule)) {
            return ProbeResult.of(Observation.unreadable(entity, "cannot read " + modules + " nor " + sysModule));
        }
        Path sysDir = sysModule.resolve(name);
        boolean builtin = state == null && Files.isDirectory(sysDir) && !Files.exists(sysDir.resolve("initstate"));
        return ProbeResult.of(Observation.of(entity)
                .put("loaded", state != null || builtin)
                .put("builtin", builtin)
                .put("state", state)
                .put("refcount", refcount)
                .build());
    }
}
