package dev.nhc.checks.gpu;

import dev.nhc.engine.config.ConfigSection;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ProbeContext;

import java.util.List;

/**
 * The config's {@code gpu:} section: where the GPU vendors' libraries are, when not where their
 * packages put them. The checks module contributes it, so that the engine's {@code settings:}
 * names no GPU vendor (NVIDIA's {@code settings.nvml_library} predates this section).
 */
public final class GpuSection implements ConfigSection {
    public static final String KEY = "gpu";

    static final ParamSpec<String> AMD_SMI_LIBRARY = ParamSpec.text("amd_smi_library",
                    "path of AMD SMI's libamd_smi.so (default: libamd_smi.so as the dynamic loader finds it; ROCm's package "
                            + "registers /opt/rocm/lib)")
            .check(s -> s.isBlank() ? "must not be empty (leave amd_smi_library out for the system's)" : null)
            .names(ParamSpec.PathUse.LOAD);

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String description() {
        return "GPU libraries: where AMD SMI is (NVIDIA's NVML: settings.nvml_library)";
    }

    @Override
    public List<ParamSpec<?>> params() {
        return List.of(AMD_SMI_LIBRARY);
    }

    /** The AMD SMI library the config names, or null for the system's. */
    public static String amdSmiLibrary(ProbeContext ctx) {
        return AMD_SMI_LIBRARY.get(ctx.section(KEY));
    }

    /** The same, from a loaded config's section (the daemon's event watcher). */
    public static String amdSmiLibrary(dev.nhc.probe.Params section) {
        return AMD_SMI_LIBRARY.get(section);
    }
}
