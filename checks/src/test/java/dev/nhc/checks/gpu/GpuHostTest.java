package dev.nhc.checks.gpu;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.probe.ProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which vendors' libraries a GPU probe loads: a library the config does not name is left alone on
 * a host whose PCI bus shows none of that vendor's GPUs, and loaded wherever the bus shows some,
 * cannot be read, or the config names it.
 */
class GpuHostTest {

    @TempDir
    Path root;

    private final List<GpuVendor> opened = new ArrayList<>();

    /** A backend that records being opened and lists one GPU-less source. */
    private GpuBackend backend(GpuVendor vendor, boolean configured) {
        return new GpuBackend() {
            @Override
            public GpuVendor vendor() {
                return vendor;
            }

            @Override
            public boolean configured(ProbeContext ctx) {
                return configured;
            }

            @Override
            public GpuSource open(ProbeContext ctx) {
                opened.add(vendor);
                return new GpuSource() {
                    @Override
                    public GpuVendor vendor() {
                        return vendor;
                    }

                    @Override
                    public String description() {
                        return vendor.displayName() + " library";
                    }

                    @Override
                    public boolean provides(GpuData kind) {
                        return true;
                    }

                    @Override
                    public String driverVersion() {
                        return null;
                    }

                    @Override
                    public List<GpuDevice> devices() {
                        return List.of();
                    }
                };
            }
        };
    }

    private GpuHost open(boolean nvidiaConfigured, boolean amdConfigured) {
        return GpuHost.open(new TestProbeContext(root), EnumSet.of(GpuVendor.NVIDIA, GpuVendor.AMD),
                List.of(backend(GpuVendor.NVIDIA, nvidiaConfigured), backend(GpuVendor.AMD, amdConfigured)));
    }

    private void pciDevice(String bdf, String vendor, String pciClass) throws Exception {
        Path d = root.resolve("sys/bus/pci/devices").resolve(bdf);
        Files.createDirectories(d);
        Files.writeString(d.resolve("vendor"), vendor + "\n");
        Files.writeString(d.resolve("class"), pciClass + "\n");
    }

    @Test
    void anNvidiaNodeDoesNotLoadAmdSmiUnlessTheConfigNamesIt() throws Exception {
        pciDevice("0000:19:00.0", "0x10de", "0x030200");
        pciDevice("0000:c1:00.0", "0x1002", "0x040300");    // an AMD function that is not a GPU (audio)

        GpuHost host = open(false, false);

        assertThat(opened).containsExactly(GpuVendor.NVIDIA);
        assertThat(host.whyNothing()).contains("no AMD GPU on the PCI bus");

        opened.clear();
        open(false, true);
        assertThat(opened).containsExactly(GpuVendor.NVIDIA, GpuVendor.AMD);
    }

    @Test
    void anAmdNodeDoesNotLoadNvml() throws Exception {
        pciDevice("0000:0c:00.0", "0x1002", "0x120000");

        open(false, false);

        assertThat(opened).containsExactly(GpuVendor.AMD);
    }

    @Test
    void aBusThatCannotBeReadLoadsEveryLibrary() {
        GpuHost host = open(false, false);

        assertThat(opened).containsExactly(GpuVendor.NVIDIA, GpuVendor.AMD);
        assertThat(host.whyNothing()).isEqualTo("no NVIDIA or AMD GPUs here (NVIDIA library reports no GPUs; AMD library reports no GPUs)");
    }
}
