package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The watcher through the real JNA binding against the fake libnvidia-ml, whose events come from a file. */
class XidEventWatcherTest {
    private XidEventWatcher watcher;

    @AfterEach
    void close() {
        if (watcher != null) {
            watcher.close();
            NvmlNative.nvmlShutdown(); // bound only once a watcher started: a JVM that never bound NVML has no symbol to call
        }
    }

    @Test
    void anXidOnAGpuReachesTheListenerWithItsIndexAndCode() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(4)));
        Files.writeString(FakeNvml.eventsFile(), "");
        List<long[]> seen = new CopyOnWriteArrayList<>();
        watcher = XidEventWatcher.start(FakeNvml.library(), (gpu, pci, xid) -> seen.add(new long[]{gpu, xid}));
        assertThat(watcher.gpus()).isEqualTo(4);
        Files.writeString(FakeNvml.eventsFile(), "gpu=2 xid=79\n", StandardOpenOption.APPEND);
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 1);
        assertThat(seen.get(0)).containsExactly(2, 79);
    }

    @Test
    void aLibraryThatCannotLoadIsAMessageNotACrash() {
        assertThatThrownBy(() -> XidEventWatcher.start("/nonexistent/libnvidia-ml.so.1", (g, p, x) -> { }))
                .isInstanceOf(IllegalStateException.class);
    }
}
