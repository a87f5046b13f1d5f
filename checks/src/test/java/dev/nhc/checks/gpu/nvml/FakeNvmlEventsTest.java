package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The fake's XID event calls, through the same binding the daemon's XID watcher will use. */
class FakeNvmlEventsTest {

    @BeforeEach
    void bind() throws java.io.IOException {
        NvmlNative.bind(FakeNvml.library());
    }

    @AfterEach
    void shutdown() {
        NvmlNative.nvmlShutdown();
    }

    @Test
    void anXidAppendedToTheEventsFileIsDeliveredToTheRegisteredGpu() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(4)));
        Files.writeString(FakeNvml.eventsFile(), "gpu=3 xid=48\n");     // before the set exists: not delivered
        assertThat(NvmlNative.nvmlInit_v2()).isEqualTo(NvmlReturn.SUCCESS);
        long[] set = new long[1];
        assertThat(NvmlNative.nvmlEventSetCreate(set)).isEqualTo(NvmlReturn.SUCCESS);
        long[] gpu3 = new long[1];
        assertThat(NvmlNative.nvmlDeviceGetHandleByIndex_v2(3, gpu3)).isEqualTo(NvmlReturn.SUCCESS);
        assertThat(NvmlNative.nvmlDeviceRegisterEvents(gpu3[0], NvmlNative.EVENT_TYPE_XID_CRITICAL_ERROR, set[0])).isEqualTo(NvmlReturn.SUCCESS);
        byte[] data = new byte[NvmlNative.EVENT_DATA_SIZE];

        assertThat(NvmlNative.nvmlEventSetWait_v2(set[0], data, 50)).isEqualTo(NvmlReturn.TIMEOUT);

        Files.writeString(FakeNvml.eventsFile(), "gpu=1 xid=31\ngpu=3 xid=79\n", StandardOpenOption.APPEND);
        int rc = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> NvmlNative.nvmlEventSetWait_v2(set[0], data, 2000));

        assertThat(rc).isEqualTo(NvmlReturn.SUCCESS);
        ByteBuffer event = ByteBuffer.wrap(data).order(ByteOrder.nativeOrder());
        assertThat(event.getLong(0)).isEqualTo(gpu3[0]);
        assertThat(event.getLong(8)).isEqualTo(NvmlNative.EVENT_TYPE_XID_CRITICAL_ERROR);
        assertThat(event.getLong(16)).isEqualTo(79L);
        assertThat(NvmlNative.nvmlEventSetFree(set[0])).isEqualTo(NvmlReturn.SUCCESS);
    }

    @Test
    void callsBeforeInitAreUninitialisedAndBadHandlesRejected() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(1)));
        NvmlNative.nvmlInit_v2();
        NvmlNative.nvmlShutdown();
        assertThat(NvmlNative.nvmlDeviceGetHandleByIndex_v2(0, new long[1])).isEqualTo(NvmlReturn.UNINITIALIZED);
        NvmlNative.nvmlInit_v2();
        assertThat(NvmlNative.nvmlDeviceGetTemperature(8L, 0, new int[1])).isEqualTo(NvmlReturn.INVALID_ARGUMENT);
    }
}
