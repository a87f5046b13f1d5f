package dev.nhc.checks.replay;

import dev.nhc.checks.dcgm.DcgmDiagProbe;
import dev.nhc.checks.dcgm.DcgmHealthProbe;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.capture.SmiQText;
import dev.nhc.checks.net.IbPortsProbe;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 18 items 3 and 4: every form the field pastes — nvidia-smi with or without its header, in
 * part, or only its error; dcgmi diag as JSON of any version or as its table, whole or in part;
 * dcgmi health as text — is recognised by its content and judged on what it holds, and what nhc
 * could not read is {@code unknown} with the reason, never a pass. Each capture is written here in
 * the tool's own layout; the corpus ({@code cli/src/test/corpus}) holds the public ones.
 */
class ReplayFormsTest {

    @TempDir
    Path dir;

    private int replays;

    /** Recognises {@code text} as the replay does and judges it with {@code checks}. */
    private Verdict replay(String text, String checks, Probe... probes) throws Exception {
        Path file = dir.resolve("capture-" + replays + ".txt");
        Files.writeString(file, text);
        ReplayInputs inputs = new ReplayInputs(Files.createDirectories(dir.resolve("scratch-" + replays++)));
        Optional<CaptureKind> kind = inputs.recognise(file);
        assertTrue(kind.isPresent(), "recognised: " + text);
        inputs.add(kind.get(), file, "capture.txt");
        Pipeline p = new Pipeline(Files.createDirectories(dir.resolve("root")), probes);
        for (Map.Entry<Class<?>, Object> e : inputs.services().entrySet()) {
            @SuppressWarnings("unchecked")
            Class<Object> type = (Class<Object>) e.getKey();
            p.service(type, e.getValue());
        }
        return p.run(checks);
    }

    private Verdict gpus(String text) throws Exception {
        return replay(text, GpuChecks.everyCheck("{ count: 1 }", ""), GpuChecks.probes());
    }

    private static String messages(Verdict v, Severity s) {
        List<String> out = new ArrayList<>();
        for (Finding f : v.findings(s)) {
            out.add(f.check() + ": " + f.message());
        }
        return String.join("\n", out);
    }

    // ---- nvidia-smi: what it prints when it cannot show a GPU says what is wrong ----

    @Test
    void nvidiaSmiPrintingOnlyItsErrorSaysWhatItMeans() throws Exception {
        Verdict lost = gpus("Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n");
        assertEquals(Severity.FAIL, lost.severity());
        assertTrue(messages(lost, Severity.FAIL).contains("gpu.inventory: nvidia-smi cannot open the GPU at 0000:3b:00.0"),
                messages(lost, Severity.FAIL));

        Verdict driver = gpus("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest"
                + " NVIDIA driver is installed and running.\n\n");
        assertEquals(Severity.FAIL, driver.severity());
        assertTrue(messages(driver, Severity.FAIL).contains("the NVIDIA driver is not loaded"), messages(driver, Severity.FAIL));

        Verdict none = gpus("No devices were found\n");
        assertEquals(Severity.FAIL, none.severity());
        assertTrue(messages(none, Severity.FAIL).contains("only 0 of the 1 GPUs found"), messages(none, Severity.FAIL));

        Verdict mismatch = gpus("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n");
        assertEquals(Severity.FAIL, mismatch.severity());
        assertTrue(messages(mismatch, Severity.FAIL).contains("the NVML library and the loaded NVIDIA kernel module are different versions"),
                messages(mismatch, Severity.FAIL));
    }

    // ---- nvidia-smi -q: without its header, in part, with the prompt pasted above it ----

    private static final String UUID = "GPU-5269b708-678a-b1a8-60f0-c90406537486";

    @Test
    void aQueryPastedWithoutItsHeaderOrWithItsPromptIsJudgedAsAWholeOne() throws Exception {
        String whole = SmiQText.query(1, SmiQText.gpu("00000000:18:00.0", UUID).remapPending("Yes").text());
        Verdict headed = gpus(whole);
        assertTrue(messages(headed, Severity.FAIL).contains("a row remap is pending"), messages(headed, Severity.FAIL));

        String headerless = whole.replace("==============NVSMI LOG==============", "");
        assertEquals(messages(headed, Severity.FAIL), messages(gpus(headerless), Severity.FAIL));
        assertEquals(messages(headed, Severity.FAIL), messages(gpus("[root@gpu-2-12 ~]# nvidia-smi -q\n" + headerless), Severity.FAIL));
    }

    @Test
    void aSectionPastedAloneIsJudgedOnWhatItHoldsAndTheRestIsNotAPass() throws Exception {
        // the "Remapped Rows" section of one GPU, copied out of a ticket
        Verdict v = gpus("    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 1\n"
                + "        Pending                           : Yes\n        Remapping Failure Occurred        : No\n");
        assertTrue(messages(v, Severity.FAIL).contains("a row remap is pending"), messages(v, Severity.FAIL));
        assertTrue(v.findings(Severity.PASS).stream().noneMatch(f -> f.check().equals("gpu.thermal")),
                "no temperature in the fragment, so gpu.thermal has nothing to pass: " + v.findings());
    }

    @Test
    void aValueNvidiaSmiCouldNotReadIsUnknownNotAPass() throws Exception {
        String q = SmiQText.query(1, SmiQText.gpu("00000000:18:00.0", UUID).text());
        Verdict v = gpus(q.replaceFirst("(Pending\\s+:) No", "$1 Unknown Error"));
        assertEquals(Severity.UNKNOWN, v.severity(), v.findings().toString());
        assertTrue(messages(v, Severity.UNKNOWN).contains("gpu.memory-repair: the capture capture.txt is partial: GPU 0 (0000:18:00.0): line 49:"
                + " 'Pending' reads 'Unknown Error': nvidia-smi could not read it"),
                messages(v, Severity.UNKNOWN));
    }

    // ---- dcgmi diag: the table with or without its preamble, or a fragment of it ----

    private static final String TABLE = """
            Successfully ran diagnostic for group.
            +---------------------------+------------------------------------------------+
            | Diagnostic                | Result                                         |
            +===========================+================================================+
            |-----  Metadata  ----------+------------------------------------------------|
            | DCGM Version              | 3.3.5                                          |
            | Driver Version Detected   | 535.161.08                                     |
            | GPU Device IDs Detected   | 2330,2330                                      |
            |-----  Deployment  --------+------------------------------------------------|
            | Denylist                  | Pass                                           |
            | NVML Library              | Pass                                           |
            | Persistence Mode          | Pass                                           |
            +-----  Hardware  ----------+------------------------------------------------+
            | GPU Memory                | Pass - GPUs: 0                                 |
            |                           | Fail - GPU: 1                                  |
            | Warning                   | GPU 1 Thermal violations totaling 13.3 seconds |
            |                           | started at 9.6 seconds into the test for GPU 1 |
            | Error                     | GPU 1 Error using CUDA API cuCtxCreate         |
            +---------------------------+------------------------------------------------+
            """;

    private Verdict diag(String text) throws Exception {
        return replay(text, "- { name: diag, use: dcgm.diag }", new DcgmDiagProbe(), new DcgmHealthProbe());
    }

    @Test
    void theDiagTableWithOrWithoutItsPreambleFailsTheGpuItNames() throws Exception {
        for (String text : List.of(TABLE, TABLE.substring(TABLE.indexOf('\n') + 1), "$ dcgmi diag -r 2\n" + TABLE)) {
            Verdict v = diag(text);
            assertEquals(Severity.FAIL, v.severity(), text);
            Finding gpu1 = Pipeline.about(v, "diag", "GPU 1");
            assertTrue(gpu1.message().contains("test 'GPU Memory' failed on GPU 1"), gpu1.message());
            assertTrue(gpu1.message().contains("cuCtxCreate"), gpu1.message());
        }
    }

    @Test
    void aFragmentOfTheTableThatSaysFailFailsAndNeverPasses() throws Exception {
        // the rows a user pasted into an issue: no header, no border, no preamble
        Verdict v = diag("| GPU Memory                | Fail - All                                     |\n"
                + "| Error                     | GPU 0 Error using CUDA API cuCtxCreate         |\n");
        assertEquals(Severity.FAIL, v.severity(), v.findings().toString());
        assertTrue(messages(v, Severity.FAIL).contains("test 'GPU Memory' failed"), messages(v, Severity.FAIL));
    }

    @Test
    void aTableCutShortIsJudgedOnWhatItHoldsAndSaysItWasCut() throws Exception {
        String cut = TABLE.substring(0, TABLE.indexOf("+-----  Hardware"));
        Verdict v = diag(cut);
        assertEquals(Severity.UNKNOWN, v.severity(), v.findings().toString());
        assertTrue(messages(v, Severity.UNKNOWN).contains("is partial"), messages(v, Severity.UNKNOWN));

        String cutAfterFail = TABLE.substring(0, TABLE.indexOf("| Warning"));
        assertEquals(Severity.FAIL, diag(cutAfterFail).severity(), "what it holds fails, whatever it lacks");
    }

    @Test
    void dcgm4EntityRowsFailTheEntityTheyName() throws Exception {
        String table = """
                +---------------------------+------------------------------------------------+
                | Diagnostic                | Result                                         |
                +===========================+================================================+
                |-----  Metadata  ----------+------------------------------------------------|
                | DCGM Version              | 4.2.3                                          |
                |-----  Deployment  --------+------------------------------------------------|
                | software                  | Pass                                           |
                |                           | GPU0: Pass                                     |
                |                           | GPU1: Pass                                     |
                +-----  Hardware  ----------+------------------------------------------------+
                | memory                    | Fail                                           |
                |                           | GPU0: Pass                                     |
                |                           | GPU1: Fail                                     |
                | Error                     | GPU 1 Error using CUDA API cuMemAlloc          |
                +---------------------------+------------------------------------------------+
                """;
        Verdict v = diag(table);
        assertEquals(Severity.FAIL, Pipeline.about(v, "diag", "GPU 1").severity(), v.findings().toString());
        assertEquals(Severity.PASS, Pipeline.about(v, "diag", "GPU 0").severity(), v.findings().toString());
    }

    // ---- dcgmi diag -j: a stray line before the JSON, null entries in tests[] ----

    @Test
    void diagJsonAfterAStrayLineAndWithNullTestsIsRead() throws Exception {
        String json = """
                Successfully ran diagnostic for group.
                {"DCGM GPU Diagnostic" : {"test_categories" : [
                  {"category" : "Deployment", "tests" : [
                    {"name" : "Denylist", "results" : [{"status" : "Pass"}]},
                    null
                  ]},
                  {"category" : "Hardware", "tests" : [
                    {"name" : "GPU Memory", "results" : [
                      {"gpu_ids" : "0", "status" : "Fail", "error_id" : 95,
                       "info" : "GPU 0 Error using CUDA API cuCtxCreate"}
                    ]}
                  ]}
                ]}, "version" : "3.3.5"}
                """;
        Verdict v = diag(json);
        assertEquals(Severity.FAIL, Pipeline.about(v, "diag", "GPU 0").severity(), v.findings().toString());
    }

    // ---- dcgmi health as text ----

    @Test
    void healthTextIsReadAsTheTreeDcgmiPrints() throws Exception {
        String text = """
                Health Monitor Report
                +----------------------------------------------------------------------------+
                | Overall Health:  Failure                                                   |
                +==================================+=========================================+
                | GPU ID: 0                        | Failure                                 |
                |                                  | Memory system: Failure                  |
                |                                  | A double bit ECC error occurred on GPU  |
                |                                  | 0.                                      |
                +----------------------------------+-----------------------------------------+
                """;
        Verdict v = replay(text, "- { name: health, use: dcgm.health }", new DcgmDiagProbe(), new DcgmHealthProbe());
        assertEquals(Severity.FAIL, v.severity(), v.findings().toString());
        assertTrue(messages(v, Severity.FAIL).contains("double bit ECC"), messages(v, Severity.FAIL));
    }

    // ---- ibstat cut short ----

    @Test
    void anIbstatCutShortJudgesThePortsItShowsAndIsNotAPassForTheRest() throws Exception {
        String cut = "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
                + "\t\tRate: 400\n\t\tLink layer: InfiniBand\nCA 'mlx5_1'\n\tCA type: MT4129\n";
        Verdict v = replay(cut, "- { name: ib, use: ib.ports, with: { count: 8 } }", new IbPortsProbe());
        assertEquals(Severity.UNKNOWN, v.severity(), v.findings().toString());
        assertEquals(Severity.PASS, Pipeline.about(v, "ib", "port mlx5_0/1").severity());
        assertTrue(messages(v, Severity.UNKNOWN).contains("cut short"), messages(v, Severity.UNKNOWN));
    }
}
