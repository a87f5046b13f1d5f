package dev.nhc.checks.gpu.calls;

import dev.nhc.checks.gpu.GpuSourceException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * One loaded and initialised GPU library (NVML, AMD SMI), shared by the GPU probes of a run (they
 * run in parallel and must not each pay for the library's init). Loading and init run on the
 * session's own daemon thread ({@link LibraryOpening}), started by the first probe that looks;
 * each GPU's calls run on that GPU's daemon thread ({@link GpuCalls}), so every call is waited
 * for with a timeout from outside.
 *
 * @param <O> what opening yields
 * @param <G> the session's per-GPU object
 */
public abstract class LibrarySession<O, G> implements LibrarySessions.Session {
    private final String library;
    private final boolean fromSettings;
    private final String description;
    private final String firstCall;
    private final Duration callLimit;
    private final ExecutorService system;
    private LibraryOpening<O> opening;
    private volatile List<G> gpus;

    /**
     * @param name              how messages name the library: "NVML", "AMD SMI"
     * @param configuredLibrary the library a config names, or null for {@code defaultLibrary}
     * @param firstCall         the library's init function, named when opening hangs before any step
     */
    protected LibrarySession(String name, String threadName, String configuredLibrary, String defaultLibrary, String firstCall,
                             Duration callLimit) {
        this.fromSettings = configuredLibrary != null && !configuredLibrary.isBlank();
        this.library = resolve(configuredLibrary, defaultLibrary);
        this.description = name + " (" + library + ")";
        this.firstCall = firstCall;
        this.callLimit = callLimit;
        this.system = CallThreads.singleThread(threadName);
    }

    /**
     * The library to load: the configured one, as an absolute path when it is a path (JNA treats a
     * name without a slash as "libNAME.so" on the search path; a path must reach dlopen whole), else the default.
     */
    public static String resolve(String configuredLibrary, String defaultLibrary) {
        if (configuredLibrary == null || configuredLibrary.isBlank()) {
            return defaultLibrary;
        }
        return configuredLibrary.contains("/") ? Path.of(configuredLibrary).toAbsolutePath().toString() : configuredLibrary;
    }

    /** The steps of opening, on the session's thread; a step fails with {@link LibraryOpening.Failure}. */
    protected abstract O open(LibraryOpening<O> steps);

    /** The library's shutdown call, on the session's thread after a successful opening. */
    protected abstract void shutDownLibrary();

    /** Stops one GPU's thread. */
    protected abstract void closeGpu(G gpu);

    public final String library() {
        return library;
    }

    /** "NVML (libnvidia-ml.so.1)": how messages name this session's library. */
    public final String description() {
        return description;
    }

    /** Whether a config named the library (a library that then cannot load is a config error, not an absence). */
    protected final boolean fromSettings() {
        return fromSettings;
    }

    protected final Duration callLimit() {
        return callLimit;
    }

    /** The per-probe time limits of a view with {@code remaining} time. */
    protected final Deadline deadline(Duration remaining) {
        return new Deadline(remaining, callLimit);
    }

    /**
     * Starts opening the library on its own thread, once: a probe that reads two vendors' GPUs has
     * both libraries open side by side while it waits for the first.
     */
    public final void start() {
        opening();
    }

    private synchronized LibraryOpening<O> opening() {
        if (opening == null) {
            opening = new LibraryOpening<>(description, firstCall, system, this::open);
        }
        return opening;
    }

    private synchronized LibraryOpening<O> started() {
        return opening;
    }

    @Override
    public final boolean failed() {
        LibraryOpening<O> o = started();
        return o != null && o.failed();
    }

    /** Waits for every step of opening, each under its own call limit and all within {@code deadline}. */
    public final O awaitOpen(Deadline deadline) throws GpuSourceException {
        return opening().await(deadline);
    }

    /** The per-GPU objects, created once per session; opening each GPU's handle runs on that GPU's thread. */
    protected final List<G> gpus(int count, IntFunction<G> create) {
        List<G> g = gpus;
        if (g == null) {
            synchronized (this) {
                g = gpus;
                if (g == null) {
                    List<G> created = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        created.add(create.apply(i));
                    }
                    gpus = g = Collections.unmodifiableList(created);
                }
            }
        }
        return g;
    }

    /** Best effort: the library's shutdown on the session's thread, waiting at most a second; a hung driver keeps its thread. */
    @Override
    public final void close() {
        LibraryOpening<O> o = started();
        if (o != null && o.succeeded()) {
            try {
                system.submit(this::shutDownLibrary).get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // nothing to do: the process is done with the library either way
            }
        }
        List<G> g = gpus;
        if (g != null) {
            g.forEach(this::closeGpu);
        }
        system.shutdown();
    }
}
