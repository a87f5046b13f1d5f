package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.FakeAmdSmi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The watcher through the real JNA binding against the fake libamd_smi, whose events come from a file. */
class AmdSmiEventWatcherTest {
    private AmdSmiEventWatcher watcher;

    @AfterEach
    void close() {
        if (watcher != null) {
            watcher.close();
            AmdSmiNative.amdsmi_shut_down();
        }
    }

    @Test
    void aResetOnAGpuReachesTheListenerWithItsIndexAddressAndMessage() throws Exception {
        FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8)));
        Files.writeString(FakeAmdSmi.eventsFile(), "");
        List<AmdGpuEvents.Event> seen = new CopyOnWriteArrayList<>();
        watcher = AmdSmiEventWatcher.start(FakeAmdSmi.library(), seen::add, Clock.systemUTC());
        assertThat(watcher.gpus()).isEqualTo(8);

        Files.writeString(FakeAmdSmi.eventsFile(), "gpu=3 event=GPU_PRE_RESET\ngpu=3 event=4\n", StandardOpenOption.APPEND);

        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
        assertThat(seen.get(0)).satisfies(e -> {
            assertThat(e.gpu()).isEqualTo(3);
            assertThat(e.pciBusId()).isEqualTo(FakeAmdSmi.pci(3));
            assertThat(e.type()).isEqualTo(AmdGpuEvents.Type.GPU_PRE_RESET);
            assertThat(e.message()).isEqualTo("fake-amdsmi: GPU_PRE_RESET on GPU 3");
        });
        assertThat(seen.get(1).type()).isEqualTo(AmdGpuEvents.Type.GPU_POST_RESET);
    }

    /** In the daemon the GPU probes open the same library after the watcher has registered: its events still come. */
    @Test
    void aProbeSessionOpenedAfterTheWatcherLeavesItsEventsAlone() throws Exception {
        FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(2)));
        Files.writeString(FakeAmdSmi.eventsFile(), "");
        List<AmdGpuEvents.Event> seen = new CopyOnWriteArrayList<>();
        watcher = AmdSmiEventWatcher.start(FakeAmdSmi.library(), seen::add, Clock.systemUTC());
        assertThat(AmdSmiNative.amdsmi_init(AmdSmiNative.INIT_AMD_GPUS)).isEqualTo(AmdSmiStatus.SUCCESS);
        AmdSmiNative.amdsmi_shut_down();

        Files.writeString(FakeAmdSmi.eventsFile(), "gpu=1 event=GPU_PRE_RESET\n", StandardOpenOption.APPEND);

        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 1);
        assertThat(seen.get(0).gpu()).isEqualTo(1);
    }

    @Test
    void aHostWithoutAmdSmiIsNotWatchedAndAConfiguredLibraryThatCannotLoadIsAMessage() {
        assertThatThrownBy(() -> AmdSmiEventWatcher.start("/nonexistent/libamd_smi.so", e -> { }, Clock.systemUTC()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("/nonexistent/libamd_smi.so");
    }
}
