package dev.nhc.checks.dcgm;

/** Synthetic dcgmi output in the shapes DCGM prints (written for these tests, not captured). */
public final class DcgmTestData {
    private DcgmTestData() {
    }

    public static final String HEALTHY = """
            {"body": {"Overall Health": {"value": "Healthy"}}, "header": ["Health Monitor Report"]}
            """;

    /** GPU 1: PCIe warning wrapped over two overflow lines; GPU 3: memory failure; one NVSwitch warning. */
    public static final String UNHEALTHY = """
            {
              "body": {
                "Overall Health": {"value": "Failure"},
                "GPU": {"children": {
                  "1": {"value": "Warning", "children": {"Errors": {"children": {
                    "PCIe system": {"value": "Warning", "overflow": [
                      "Detected more than 8 PCIe replays per minute for GPU 1 :",
                      "13 Reconnect PCIe card. Run system side PCIE diagnostic utilities to verify hardware is healthy."]}}}}},
                  "3": {"value": "Failure", "children": {"Errors": {"children": {
                    "Memory system": {"value": "Failure", "overflow": ["A volatile double-bit ECC error has occurred on GPU 3."]}}}}}
                }},
                "Switch": {"children": {
                  "0": {"value": "Warning", "children": {"Errors": {"children": {
                    "NvSwitch NF": {"value": "Warning", "overflow": ["NVSwitch 0 non-fatal error"]}}}}}
                }}
              },
              "header": ["Health Monitor Report"]
            }
            """;

    static final String NO_WATCHES = "Error: Health watches not enabled. Please enable watches. \n";

    static final String ENGINE_DOWN = "Error: unable to establish a connection to the specified host: localhost\n"
            + "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n";

    /** DCGM 3.x: CUDA library fails (node-wide, no GPU), memory fails on GPU 1, the rest passes or skips. */
    static final String DIAG_V3_FAIL = """
            {
              "DCGM GPU Diagnostic": {
                "test_categories": [
                  {"category": "Deployment", "tests": [
                    {"name": "NVML Library", "results": [{"status": "Pass"}]},
                    {"name": "CUDA Main Library", "results": [{"status": "Fail",
                      "warnings": "Cannot open library libcuda.so.1: no such file"}]}]},
                  {"category": "Hardware", "tests": [
                    {"name": "GPU Memory", "results": [
                      {"gpu_ids": "0", "status": "Pass", "info": "GPU 0 Allocated 1 bytes"},
                      {"gpu_ids": "1", "status": "Fail", "warnings": "GPU 1 DBE detected during memory test"}]},
                    {"name": "EUD Test", "results": [{"gpu_ids": "1", "status": "Skip"}]}]}
                ]
              }
            }
            """;

    /** DCGM 4.x: entity results with warning lists; the pcie test fails on GPUs 2 and 5, one warns. */
    public static final String DIAG_V4_FAIL = """
            {
              "DCGM Diagnostic": {
                "test_categories": [
                  {"category": "Integration", "tests": [
                    {"name": "pcie", "test_summary": {"status": "Fail"}, "results": [
                      {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Pass"},
                      {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 2, "status": "Fail",
                       "warnings": [{"error_category": 4, "error_id": 83, "error_severity": 2,
                                     "warning": "GPU 2 PCIe link width x8 is below the expected x16"}]},
                      {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 5, "status": "Fail",
                       "warnings": [{"error_id": 13, "warning": "GPU 5 host to device bandwidth 3.1 GB/s is below 12 GB/s"}]}]}]},
                  {"category": "Hardware", "tests": [
                    {"name": "memory", "results": [
                      {"entity_group": "GPU", "entity_id": 2, "status": "Warn", "warnings": [{"warning": "GPU 2 slow memory test"}]}]},
                    {"name": "eud", "test_summary": {"status": "Skip"}, "results": []}]}
                ]
              },
              "metadata": {"version": "4.2.3"}
            }
            """;

    public static final String DIAG_V4_PASS = """
            {"DCGM Diagnostic": {"test_categories": [{"category": "Deployment", "tests": [
              {"name": "software", "results": [{"entity_group": "GPU", "entity_id": 0, "status": "Pass"}]}]}]}}
            """;

    static final String DIAG_V4_RUNTIME_ERROR = """
            {"DCGM Diagnostic": {"runtime_error": "Couldn't find the NVVS binary"}}
            """;

    /** The top key holds the category list itself instead of an object with test_categories. */
    static final String DIAG_WRONG_SHAPE = """
            {
              "DCGM GPU Diagnostic" :
                [ {"category": "Deployment", "tests": [{"name": "CUDA Main Library", "results": [{"status": "Fail"}]}]} ]
            }
            """;

    /** dcgmi diag text table, warning wrapped mid-word at 40 characters. */
    static final String DIAG_TEXT_FAIL = """
            Successfully ran diagnostic for group.
            +---------------------------+-------------------------------------------+
            | Diagnostic                | Result                                    |
            +===========================+===========================================+
            |-----  Metadata  ----------+-------------------------------------------|
            | DCGM Version              | 4.1.0                                     |
            |-----  Deployment  --------+-------------------------------------------|
            | software                  | Pass                                      |
            +-----  Integration  -------+-------------------------------------------+
            | pcie                      | Fail - GPU: 1, 6                          |
            | Warning                   | GPU 1 bandwidth too low; the link traini  |
            |                           | ng reported x4.                           |
            +-----  Hardware  ----------+-------------------------------------------+
            | memory                    | Pass - All                                |
            +---------------------------+-------------------------------------------+
            """;

    /**
     * DCGM 4.x level 1 on a node with persistence mode off: the software test fails on both GPUs with
     * DCGM_FR_PERSISTENCE_MODE (error id 29, severity 5 CONFIG, category 8), everything else passes.
     */
    static final String DIAG_V4_PERSISTENCE_ONLY = """
            {"DCGM Diagnostic": {"test_categories": [
              {"category": "Deployment", "tests": [
                {"name": "software", "test_summary": {"status": "Fail"}, "results": [
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Fail",
                   "warnings": [{"error_category": 8, "error_id": 29, "error_severity": 5,
                     "warning": "Persistence mode for GPU 0 is disabled. Enable persistence mode by running \\"nvidia-smi -i <gpuId> -pm 1 \\" as root."}]},
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 1, "status": "Fail",
                   "warnings": [{"error_category": 8, "error_id": 29, "error_severity": 5,
                     "warning": "Persistence mode for GPU 1 is disabled. Enable persistence mode by running \\"nvidia-smi -i <gpuId> -pm 1 \\" as root."}]}]}]},
              {"category": "Hardware", "tests": [
                {"name": "memory", "test_summary": {"status": "Pass"}, "results": [
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Pass"},
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 1, "status": "Pass"}]}]}
            ]}, "metadata": {"version": "4.2.3"}}
            """;

    /**
     * GPU 0 has persistence mode off; on GPU 1 the same test was aborted, which DCGM files under the
     * same severity (5) and category (8) as DCGM_FR_ABORTED, error id 47: that verified nothing.
     */
    static final String DIAG_V4_PERSISTENCE_AND_ABORTED = """
            {"DCGM Diagnostic": {"test_categories": [
              {"category": "Deployment", "tests": [
                {"name": "software", "test_summary": {"status": "Fail"}, "results": [
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Fail",
                   "warnings": [{"error_category": 8, "error_id": 29, "error_severity": 5, "warning": "Persistence mode for GPU 0 is disabled."}]},
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 1, "status": "Fail",
                   "warnings": [{"error_category": 8, "error_id": 47, "error_severity": 5, "warning": "Test was aborted early due to user signal"}]}]}]}
            ]}}
            """;

    /** DCGM 3.x: the error's id and severity on the result itself, its text as one string. */
    static final String DIAG_V3_PERSISTENCE_ONLY = """
            {"DCGM GPU Diagnostic": {"test_categories": [
              {"category": "Deployment", "tests": [
                {"name": "Persistence Mode", "results": [
                  {"gpu_ids": "0", "status": "Fail", "warnings": "Persistence mode for GPU 0 is disabled.",
                   "error_id": 29, "error_severity": 5, "error_category": 8}]},
                {"name": "NVML Library", "results": [{"status": "Pass"}]}]}
            ]}}
            """;

    /** dcgmi diag's text table with the same message and no ids: DCGM's exact words are all there is. */
    static final String DIAG_TEXT_PERSISTENCE_ONLY = """
            +---------------------------+------------------------------------------------+
            | Diagnostic                | Result                                         |
            +===========================+================================================+
            |-----  Deployment  --------+------------------------------------------------|
            | Persistence Mode          | Fail - GPU: 0                                  |
            | Warning                   | Persistence mode for GPU 0 is disabled.        |
            | Environment Variables     | Pass                                           |
            +---------------------------+------------------------------------------------+
            """;

    /** Every plugin skipped (an unsupported GPU): a diag that verified nothing. */
    static final String DIAG_V4_ALL_SKIPPED = """
            {"DCGM Diagnostic": {"test_categories": [
              {"category": "Hardware", "tests": [
                {"name": "memory", "test_summary": {"status": "Skip"}, "results": [
                  {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Skip",
                   "info": "Skipping test because GPU 0 is not supported by this plugin"}]},
                {"name": "pcie", "test_summary": {"status": "Skip"}, "results": []}]}
            ]}}
            """;

    /** DCGM says it cannot judge a system ("Internal error" is what dcgmi prints for any other result). */
    static final String HEALTH_INTERNAL_ERROR = """
            {"body": {"Overall Health": {"value": "Internal error"},
              "GPU": {"children": {"2": {"value": "Internal error", "children": {"Errors": {"children": {
                "Internal error": {"value": "Internal error", "overflow": ["Unable to read the health of GPU 2"]}}}}}}}},
             "header": ["Health Monitor Report"]}
            """;

    /** GPU 3: memory failure and a PCIe warning at once. */
    static final String HEALTH_TWO_SYSTEMS = """
            {"body": {"Overall Health": {"value": "Failure"},
              "GPU": {"children": {"3": {"value": "Failure", "children": {"Errors": {"children": {
                "PCIe system": {"value": "Warning", "overflow": ["Detected more than 8 PCIe replays per minute for GPU 3 : 40"]},
                "Memory system": {"value": "Failure", "overflow": ["A volatile double-bit ECC error has occurred on GPU 3."]}}}}}}}},
             "header": ["Health Monitor Report"]}
            """;

    /** DCGM says Failure overall but names no GPU or system. */
    static final String HEALTH_OVERALL_ONLY = """
            {"body": {"Overall Health": {"value": "Failure"}}, "header": ["Health Monitor Report"]}
            """;
}
