package dev.nhc.checks.gpu.capture;

/**
 * {@code nvidia-smi -q} text in nvidia-smi's own layout (driver 535), written by the tests: GPU
 * blocks abridged to the sections nhc reads, plus a few it ignores, with the values a test sets.
 */
public final class SmiQText {

    private SmiQText() {
    }

    /** The whole capture: header, driver, "Attached GPUs" as given, then the blocks. */
    public static String query(int attached, String... blocks) {
        return "\n==============NVSMI LOG==============\n\nTimestamp                                 : Thu Nov 14 10:45:47 2024\n"
                + "Driver Version                            : 555.42.02\n\nAttached GPUs                             : " + attached + "\n"
                + String.join("", blocks);
    }

    /** A capture of all these GPUs. */
    public static String query(Gpu... gpus) {
        String[] blocks = new String[gpus.length];
        for (int i = 0; i < gpus.length; i++) {
            blocks[i] = gpus[i].text();
        }
        return query(gpus.length, blocks);
    }

    public static Gpu gpu(String bus, String uuid) {
        return new Gpu(bus, uuid);
    }

    /** One GPU block; every value as nvidia-smi prints it. Performance state and utilisation are left out unless set. */
    public static final class Gpu {
        private final String bus;
        private final String uuid;
        private String name = "NVIDIA A100-SXM4-80GB";
        private String persistence = "Enabled";
        private String genMax = "4";
        private String gen = "4";
        private String widthMax = "16x";
        private String width = "16x";
        private String performanceState;
        private String utilization;
        private String idle = "Active";
        private String hwSlowdown = "Not Active";
        private String hwThermal = "Not Active";
        private String powerBrake = "Not Active";
        private String remapPending = "No";
        private String powerDraw = "59.77 W";

        private Gpu(String bus, String uuid) {
            this.bus = bus;
            this.uuid = uuid;
        }

        public Gpu name(String v) {
            name = v;
            return this;
        }

        public Gpu persistence(String v) {
            persistence = v;
            return this;
        }

        /** The link: current and maximum generation, current and maximum width ("16x"). */
        public Gpu link(String currentGen, String maxGen, String currentWidth, String maxWidth) {
            gen = currentGen;
            genMax = maxGen;
            width = currentWidth;
            widthMax = maxWidth;
            return this;
        }

        /** "P8", and the GPU utilisation as nvidia-smi prints it ("0 %"). */
        public Gpu busy(String pstate, String gpuUtilization) {
            performanceState = pstate;
            utilization = gpuUtilization;
            return this;
        }

        /** Clock event reasons: HW slowdown, and under it HW thermal slowdown and HW power brake ("Active" / "Not Active"). */
        public Gpu clockEvents(String idleActive, String slowdown, String thermal, String brake) {
            idle = idleActive;
            hwSlowdown = slowdown;
            hwThermal = thermal;
            powerBrake = brake;
            return this;
        }

        public Gpu remapPending(String v) {
            remapPending = v;
            return this;
        }

        public Gpu powerDraw(String v) {
            powerDraw = v;
            return this;
        }

        public String text() {
            return "GPU " + bus + "\n"
                    + "    Product Name                          : " + name + "\n"
                    + "    Persistence Mode                      : " + persistence + "\n"
                    + "    GPU UUID                              : " + uuid + "\n"
                    + "    PCI\n"
                    + "        Bus Id                            : " + bus + "\n"
                    + "        GPU Link Info\n"
                    + "            PCIe Generation\n"
                    + "                Max                       : " + genMax + "\n"
                    + "                Current                   : " + gen + "\n"
                    + "                Host Max                  : N/A\n"
                    + "            Link Width\n"
                    + "                Max                       : " + widthMax + "\n"
                    + "                Current                   : " + width + "\n"
                    + "        Replays Since Reset               : 0\n"
                    + (performanceState == null ? "" : "    Performance State                     : " + performanceState + "\n")
                    + "    Clocks Event Reasons\n"
                    + "        Idle                              : " + idle + "\n"
                    + "        HW Slowdown                       : " + hwSlowdown + "\n"
                    + "            HW Thermal Slowdown           : " + hwThermal + "\n"
                    + "            HW Power Brake Slowdown       : " + powerBrake + "\n"
                    + (utilization == null ? "" : "    Utilization\n        Gpu                               : " + utilization + "\n"
                            + "        Memory                            : 0 %\n")
                    + "    ECC Mode\n"
                    + "        Current                           : Enabled\n"
                    + "        Pending                           : Enabled\n"
                    + "    ECC Errors\n"
                    + "        Volatile\n"
                    + "            SRAM Correctable              : 0\n"
                    + "            SRAM Uncorrectable Parity     : 0\n"
                    + "            SRAM Uncorrectable SEC-DED    : 0\n"
                    + "            DRAM Correctable              : 353\n"
                    + "            DRAM Uncorrectable            : 0\n"
                    + "        Aggregate\n"
                    + "            SRAM Correctable              : [N/A]\n"
                    + "            DRAM Correctable              : 353\n"
                    + "            DRAM Uncorrectable            : 0\n"
                    + "    Retired Pages\n"
                    + "        Single Bit ECC                    : N/A\n"
                    + "        Double Bit ECC                    : N/A\n"
                    + "        Pending Page Blacklist            : N/A\n"
                    + "    Remapped Rows\n"
                    + "        Correctable Error                 : 1\n"
                    + "        Uncorrectable Error               : 0\n"
                    + "        Pending                           : " + remapPending + "\n"
                    + "        Remapping Failure Occurred        : No\n"
                    + "    Temperature\n"
                    + "        GPU Current Temp                  : 25 C\n"
                    + "        GPU T.Limit Temp                  : N/A\n"
                    + "        GPU Shutdown Temp                 : 92 C\n"
                    + "        GPU Slowdown Temp                 : 89 C\n"
                    + "        GPU Max Operating Temp            : 85 C\n"
                    + "        Memory Current Temp               : 43 C\n"
                    + "        Memory Max Operating Temp         : 95 C\n"
                    + "    GPU Power Readings\n"
                    + "        Power Draw                        : " + powerDraw + "\n"
                    + "        Current Power Limit               : 500.00 W\n"
                    + "    Processes                             : None\n\n";
        }
    }
}
