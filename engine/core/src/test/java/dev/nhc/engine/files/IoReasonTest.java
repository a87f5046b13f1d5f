package dev.nhc.engine.files;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IoReasonTest {
    @Test
    void theJdksReasonlessExceptionsSayWhatWentWrongNotThePathAgain() {
        // The JDK's AccessDeniedException has no reason: its message is only the path, which the caller names already.
        assertEquals("permission denied", IoReason.of(new AccessDeniedException("/etc/nhc/nhc.yaml")));
        assertEquals("no such file or directory", IoReason.of(new NoSuchFileException("/etc/nhc/nhc.yaml")));
    }

    @Test
    void aGivenReasonIsKeptOnOneLine() {
        assertEquals("Input/output error", IoReason.of(new FileSystemException("/x", null, "Input/output error")));
        assertEquals("bad read more", IoReason.of(new IOException("bad read\nmore")));
    }
}
