package dev.nhc.cli;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Takes back SIGHUP when whoever started the daemon ignored it ({@code nohup}, some init scripts).
 * The JVM leaves a signal it inherited as ignored ignored, and {@code Signal.handle} then quietly
 * installs nothing, so {@code kill -HUP} would do nothing at all. An admin who sends SIGHUP to the
 * daemon means "reload" whatever started it, so the disposition is reset to the default before the
 * daemon installs its handler.
 */
final class InheritedHangup {
    private static final int SIGHUP = 1;
    /** glibc's struct sigaction is 152 bytes on x86-64 and aarch64; its first member is the handler. */
    private static final int SIGACTION_BYTES = 256;
    private static final long SIG_IGN = 1;

    interface LibC extends Library {
        int sigaction(int signum, Pointer act, Pointer oldact);

        Pointer signal(int signum, Pointer handler);
    }

    private InheritedHangup() {
    }

    /** Whether SIGHUP was ignored and is now back to its default, ready for the daemon's handler. */
    static boolean takeBack() {
        try {
            LibC c = Native.load("c", LibC.class);
            Memory old = new Memory(SIGACTION_BYTES);
            old.clear();
            if (c.sigaction(SIGHUP, Pointer.NULL, old) != 0 || Pointer.nativeValue(old.getPointer(0)) != SIG_IGN) {
                return false;
            }
            c.signal(SIGHUP, Pointer.NULL);
            return true;
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            // Without libc through JNA the daemon still runs; Daemon says that SIGHUP cannot be handled.
            return false;
        }
    }
}
