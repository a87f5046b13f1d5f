package dev.nhc.checks.gpu.calls;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.TrustedLibrary;

import java.io.IOException;

/**
 * One vendor library bound to its class of native methods by JNA direct mapping (NVML's
 * {@code NvmlNative}, AMD SMI's {@code AmdSmiNative}): found through {@link TrustedLibrary} (as
 * root, only one that only root can change), loaded by its real path, bound once per process.
 */
public final class NativeBinding {
    private final Class<?> natives;
    private final String name;
    /** The library as asked for (a path or name), the real path it was loaded from, and the library. */
    private String requested;
    private String bound;
    private NativeLibrary library;

    /** @param name the library by its own name, for messages: "NVML", "AMD SMI" */
    public NativeBinding(Class<?> natives, String name) {
        this.natives = natives;
        this.name = name;
    }

    /**
     * Finds {@code library}, loads it and binds the class to it; again with the same library is a no-op.
     *
     * @throws java.nio.file.NoSuchFileException when it is not there (the reason says where it was looked for)
     * @throws dev.nhc.engine.files.UntrustedPathException as root, when someone else could change it: it is not loaded
     * @throws UnsatisfiedLinkError when it cannot be loaded (an Error: callers catch it)
     * @throws IllegalStateException when another library is already bound in this process
     */
    public synchronized void bind(String library) throws IOException {
        if (library.equals(requested)) {
            return;
        }
        String path = TrustedLibrary.locate(library, Ownership.runningAsRoot()).toString();
        if (path.equals(bound)) {
            requested = library;
            return;
        }
        NativeLibrary lib = NativeLibrary.getInstance(path);     // a library that cannot load says so first
        if (bound != null) {
            throw new IllegalStateException("this process already uses " + name + " from " + bound + "; it cannot also use " + library);
        }
        Native.register(natives, lib);
        bound = path;
        requested = library;
        this.library = lib;
    }

    /** The real path of the bound library, or null before {@link #bind}. */
    public synchronized String path() {
        return bound;
    }

    /** The bound library, or null before {@link #bind}. */
    public synchronized NativeLibrary library() {
        return library;
    }
}
