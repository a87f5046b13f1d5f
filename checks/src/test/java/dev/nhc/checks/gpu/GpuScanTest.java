package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.NvidiaSmiCapture;
import dev.nhc.checks.gpu.capture.SmiQText;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class GpuScanTest {
    @TempDir
    Path root;

    private Observation readWith(GpuScan.Reader reader) throws Exception {
        GpuSource source = new CaptureGpuSource(NvidiaSmiCapture.parse("capture.txt",
                SmiQText.query(SmiQText.gpu("00000000:68:00.0", GpuFalseVerdictsTest.UUID0))));
        ProbeResult r = GpuScan.run(new TestProbeContext(root), GpuHost.replay(source, GpuSpecs.ALL_VENDORS), GpuData.PCIE, reader);
        assertThat(r.observations()).hasSize(1);
        return r.observations().get(0);
    }

    /** A reader that fails in a way nobody planned for says what went wrong, not which Java class it was. */
    @Test
    void anUnexpectedErrorIsReportedByItsMessage() throws Exception {
        Observation o = readWith((gpu, out) -> {
            throw new IllegalStateException("the driver returned a negative link width");
        });
        assertThat(o.readable()).isFalse();
        assertThat(o.problem()).isEqualTo("GPU 0 (0000:68:00.0): could not be read: the driver returned a negative link width");

        Observation none = readWith((gpu, out) -> {
            throw new NullPointerException();
        });
        assertThat(none.problem()).isEqualTo("GPU 0 (0000:68:00.0): could not be read: an unexpected error inside nhc");
    }
}
