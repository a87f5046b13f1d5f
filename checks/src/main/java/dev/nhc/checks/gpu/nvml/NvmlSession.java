package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One loaded and initialised NVML, shared by the GPU probes of a run (they run in parallel and
 * must not each pay for {@code nvmlInit_v2}). Loading and init run on the session's own daemon
 * thread, each GPU's calls on that GPU's daemon thread ({@link NvmlGpu}), so every call is waited
 * for with a timeout from outside.
 */
public final class NvmlSession {
    /** What {@code settings.nvml_library} defaults to: the runtime library the driver installs. */
    public static final String DEFAULT_LIBRARY = "libnvidia-ml.so.1";

    private final String library;
    private final boolean fromSettings;
    private final Duration callLimit;
    private final ExecutorService system;
    private final CompletableFuture<Opened> opened;
    private volatile List<NvmlGpu> gpus;
    /** The step of opening in progress, so that a hang is reported by the call that blocked, not by init. */
    private volatile Step step;

    record Opened(String driverVersion, int count) {
    }

    /** One step of opening: {@code call} names it in messages; {@code startedNanos} gives it its own call limit. */
    private record Step(String call, long startedNanos) {
    }

    NvmlSession(String configuredLibrary, Duration callLimit) {
        this.fromSettings = configuredLibrary != null && !configuredLibrary.isBlank();
        // JNA treats a name without a slash as "libNAME.so" on the search path; a path must reach dlopen whole.
        this.library = !fromSettings ? DEFAULT_LIBRARY
                : configuredLibrary.contains("/") ? java.nio.file.Path.of(configuredLibrary).toAbsolutePath().toString() : configuredLibrary;
        this.callLimit = callLimit;
        this.system = NvmlCallRunner.singleThread("nvml-system");
        this.opened = CompletableFuture.supplyAsync(this::open, system);
    }

    public String library() {
        return library;
    }

    Duration callLimit() {
        return callLimit;
    }

    /** Whether opening failed for good (a retry may succeed, e.g. after the driver was loaded); false while it is still running. */
    boolean failed() {
        return opened.isCompletedExceptionally();
    }

    private void starting(String call) {
        step = new Step(call, System.nanoTime());
    }

    private Opened open() {
        starting("loading " + library);
        try {
            NvmlNative.bind(library);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            // An Error, not an Exception: a node without the driver is an answer, not a crash.
            throw new OpenFailure(missingLibrary(firstReason(e)));
        } catch (UntrustedPathException e) {
            // Its constructors would run as root: nothing of it runs, and the GPU checks cannot tell.
            throw new OpenFailure("refusing to load NVML from " + library + (fromSettings ? " (settings.nvml_library)" : "")
                    + " as root: " + e.getMessage() + "; running as root, nhc loads only libraries that only root can change");
        } catch (IOException e) {
            throw new OpenFailure(missingLibrary(IoReason.of(e)));
        } catch (IllegalStateException e) {
            throw new OpenFailure(e.getMessage());
        }
        starting("nvmlInit_v2");
        int rc = NvmlNative.nvmlInit_v2();
        if (rc != NvmlReturn.SUCCESS) {
            throw new OpenFailure(initFailure(rc));
        }
        int[] count = new int[1];
        starting("nvmlDeviceGetCount_v2");
        rc = NvmlNative.nvmlDeviceGetCount_v2(count);
        if (rc != NvmlReturn.SUCCESS) {
            throw new OpenFailure("NVML (" + library + ") cannot count the GPUs: nvmlDeviceGetCount_v2 returned " + describe(rc));
        }
        byte[] version = new byte[96];
        starting("nvmlSystemGetDriverVersion");
        rc = NvmlNative.nvmlSystemGetDriverVersion(version, version.length);
        String driver = rc == NvmlReturn.SUCCESS ? Native.toString(version) : null;
        return new Opened(driver, count[0]);
    }

    /** JNA's message is "Unable to load library 'X':" and then dlopen's reasons, one per line: the first reason. */
    private static String firstReason(Throwable e) {
        List<String> lines = e.getMessage() == null ? List.of(e.toString()) : e.getMessage().lines().map(String::strip)
                .filter(l -> !l.isEmpty()).toList();
        return lines.size() > 1 && lines.get(0).endsWith(":") ? lines.get(1) : lines.isEmpty() ? e.toString() : lines.get(0);
    }

    private String missingLibrary(String why) {
        if (fromSettings) {
            return "cannot load NVML from " + library + " (settings.nvml_library): " + why;
        }
        return "NVML is not installed: " + library + " could not be loaded (" + why
                + "); install the NVIDIA driver, or set settings.nvml_library to the library's path";
    }

    private String initFailure(int rc) {
        String what = "nvmlInit_v2 returned " + describe(rc);
        return switch (rc) {
            case NvmlReturn.DRIVER_NOT_LOADED -> "the NVIDIA driver is not loaded (" + what
                    + "): check that the nvidia kernel module is loaded (lsmod | grep nvidia) and dmesg for NVRM errors";
            case NvmlReturn.LIB_RM_VERSION_MISMATCH -> "the NVML library and the loaded NVIDIA kernel module are different versions ("
                    + what + "): the driver was upgraded without reloading the module; reboot the node";
            case NvmlReturn.NO_PERMISSION -> "no permission to use the GPUs (" + what + "): nhc must run as root or with access to /dev/nvidia*";
            default -> "NVML failed to initialise (" + what + ")";
        };
    }

    static String describe(int rc) {
        String text;
        try {
            com.sun.jna.Pointer p = NvmlNative.nvmlErrorString(rc);
            text = p == null ? null : p.getString(0);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            text = null;
        }
        return NvmlReturn.name(rc) + (text == null || text.isBlank() ? "" : " (" + text + ")");
    }

    /**
     * Waits for load, init, count and driver version. Each of these steps may take the per-call
     * limit, counted from when it started, and all of them end with {@code deadline}; a step that
     * overruns is reported by its own name (a GPU that hangs the count is not an init hang).
     */
    Opened awaitOpen(Deadline deadline) throws GpuSourceException {
        while (true) {
            Step s = step;
            long now = System.nanoTime();
            long wait = deadline.nextCall().toNanos();
            if (s != null) {
                wait = Math.max(Deadline.MIN_NANOS, Math.min(wait, s.startedNanos() + deadline.callLimitNanos() - now));
            }
            try {
                return opened.get(wait, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                Step after = step;
                if (after != s && System.nanoTime() < deadline.endNanos()) {
                    continue; // the step that was slow finished; the next one gets its own limit
                }
                String call = after == null ? "nvmlInit_v2" : after.call();
                long blocked = after == null ? wait : System.nanoTime() - after.startedNanos();
                throw GpuSourceException.hung(call, "NVML (" + library + ") is not responding: " + call + " blocked > "
                        + NvmlCallRunner.format(Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(blocked) / 100 * 100))
                        + "; the driver or a GPU is hung");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                throw new GpuSourceException(cause instanceof OpenFailure ? cause.getMessage()
                        : "NVML (" + library + ") failed to open: " + GpuScan.describe(cause));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new GpuSourceException("interrupted while waiting for NVML to initialise");
            }
        }
    }

    /** The per-GPU objects, created once per session; opening each GPU's handle runs on that GPU's thread. */
    List<NvmlGpu> gpus(Opened o) {
        List<NvmlGpu> g = gpus;
        if (g == null) {
            synchronized (this) {
                g = gpus;
                if (g == null) {
                    List<NvmlGpu> created = new ArrayList<>();
                    for (int i = 0; i < o.count(); i++) {
                        created.add(new NvmlGpu(i));
                    }
                    gpus = g = Collections.unmodifiableList(created);
                }
            }
        }
        return g;
    }

    /** A view of this session for one probe, bounded by the probe's remaining time. */
    public NvmlSource view(Duration remaining) {
        return new NvmlSource(this, new Deadline(remaining, callLimit));
    }

    /** Best effort: nvmlShutdown on the session's thread, waiting at most a second; a hung driver keeps its thread. */
    void close() {
        if (opened.isDone() && !opened.isCompletedExceptionally()) {
            try {
                system.submit(NvmlNative::nvmlShutdown).get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // nothing to do: the process is done with NVML either way
            }
        }
        List<NvmlGpu> g = gpus;
        if (g != null) {
            g.forEach(NvmlGpu::close);
        }
        system.shutdown();
    }

    /** Carries a finished message out of the opening thread. */
    static final class OpenFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OpenFailure(String message) {
            super(message, null, false, false);
        }
    }
}
