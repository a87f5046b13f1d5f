package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import dev.nhc.checks.gpu.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The fake's XID event calls, through the same JNA interface the daemon's XID watcher will use. */
class FakeNvmlEventsTest {
    private final NvmlLibrary nvml = Native.load(FakeNvml.library(), NvmlLibrary.class);

    @AfterEach
    void shutdown() {
        nvml.nvmlShutdown();
    }

    @Test
    void anXidAppendedToTheEventsFileIsDeliveredToTheRegisteredGpu() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(4)));
        Files.writeString(FakeNvml.eventsFile(), "gpu=3 xid=48\n");     // before the set exists: not delivered
        assertThat(nvml.nvmlInit_v2()).isEqualTo(NvmlReturn.SUCCESS);
        PointerByReference set = new PointerByReference();
        assertThat(nvml.nvmlEventSetCreate(set)).isEqualTo(NvmlReturn.SUCCESS);
        PointerByReference gpu3 = new PointerByReference();
        assertThat(nvml.nvmlDeviceGetHandleByIndex_v2(3, gpu3)).isEqualTo(NvmlReturn.SUCCESS);
        assertThat(nvml.nvmlDeviceRegisterEvents(gpu3.getValue(), NvmlLibrary.EVENT_TYPE_XID_CRITICAL_ERROR, set.getValue()))
                .isEqualTo(NvmlReturn.SUCCESS);
        Memory data = new Memory(NvmlLibrary.EVENT_DATA_SIZE);

        assertThat(nvml.nvmlEventSetWait_v2(set.getValue(), data, 50)).isEqualTo(NvmlReturn.TIMEOUT);

        Files.writeString(FakeNvml.eventsFile(), "gpu=1 xid=31\ngpu=3 xid=79\n", StandardOpenOption.APPEND);
        int rc = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> nvml.nvmlEventSetWait_v2(set.getValue(), data, 2000));

        assertThat(rc).isEqualTo(NvmlReturn.SUCCESS);
        assertThat(data.getPointer(0)).isEqualTo(gpu3.getValue());
        assertThat(data.getLong(8)).isEqualTo(NvmlLibrary.EVENT_TYPE_XID_CRITICAL_ERROR);
        assertThat(data.getLong(16)).isEqualTo(79L);
        assertThat(nvml.nvmlEventSetFree(set.getValue())).isEqualTo(NvmlReturn.SUCCESS);
    }

    @Test
    void callsBeforeInitAreUninitialised() throws Exception {
        FakeNvml.use(FakeNvml.scenario(FakeNvml.healthyH100s(1)));
        nvml.nvmlInit_v2();
        nvml.nvmlShutdown();
        assertThat(nvml.nvmlDeviceGetHandleByIndex_v2(0, new PointerByReference())).isEqualTo(NvmlReturn.UNINITIALIZED);
        nvml.nvmlInit_v2();
        assertThat(nvml.nvmlDeviceGetTemperature(Pointer.createConstant(8), 0, new com.sun.jna.ptr.IntByReference()))
                .isEqualTo(NvmlReturn.INVALID_ARGUMENT);
    }
}
