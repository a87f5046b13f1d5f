package dev.nhc.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FdBudgetTest {
    @TempDir
    Path dir;

    @Test
    void theLimitIsReadFromProcLimitsAndSharesTheRoomBeyondTheReserve() throws Exception {
        Path limits = Files.writeString(dir.resolve("limits"), """
                Limit                     Soft Limit           Hard Limit           Units
                Max processes             95528                95528                processes
                Max open files            8192                 8192                 files
                """);
        assertEquals(8192, FdBudget.readMaxFds(limits));
        assertEquals(1024, FdBudget.readMaxFds(dir.resolve("missing")), "unknown: the common default");
        // Under the unit's 8192 the proxy keeps nearly its 4096; under a shell's 1024 it gets far fewer.
        assertEquals(3968, FdBudget.of(4096, 0.5, 8192));
        assertEquals(384, FdBudget.of(4096, 0.5, 1024));
        assertEquals(8, FdBudget.of(256, 0.05, 300), "never fewer than a few");
    }
}
