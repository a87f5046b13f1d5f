package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Facts about this JVM's own process that the one-shot path needs cheaply. */
public final class CurrentProcess {
    private static final long PID = readPid();

    private CurrentProcess() {
    }

    /**
     * This process's id, from /proc/self where Linux has it: ProcessHandle's class initialisation
     * sets up process-reaper machinery that a one-shot run never needs (~5 ms).
     */
    public static long pid() {
        return PID;
    }

    private static long readPid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid();
        }
    }
}
