package dev.nhc.dstack;

import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Tags;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Small verdicts for tests. */
final class Verdicts {
    private Verdicts() {
    }

    /** For a proxy in a test: its listener must never stop. */
    static final java.util.function.Consumer<String> NOT_FATAL = why -> {
        throw new AssertionError("the proxy's listener stopped: " + why);
    };

    static Verdict healthy() {
        return with(check("root-fs", "disk.usage", CheckStatus.COMPLETED));
    }

    static Verdict with(CheckResult... checks) {
        return SeverityPolicy.STANDARD.verdict("node1", Instant.parse("2026-11-22T04:00:00Z"), 12, List.of(checks));
    }

    /** A check result; a probe named gpu.* carries the tags a GPU probe declares, with its DCGM health system. */
    static CheckResult check(String name, String probe, CheckStatus status, Finding... findings) {
        List<Finding> fs = List.of(findings).stream().map(f -> f.withCheck(name)).toList();
        return new CheckResult(name, probe, tags(probe), status, SeverityPolicy.STANDARD.ofFindings(fs), 7, fs, List.of(), null);
    }

    static Set<String> tags(String probe) {
        return switch (probe) {
            case "gpu.ecc" -> Set.of(Tags.GPU, Tags.NVML, Tags.MEMORY);
            case "gpu.nvlink" -> Set.of(Tags.GPU, Tags.NVML, Tags.NVLINK);
            case "gpu.inventory" -> Set.of(Tags.GPU, Tags.NVML, Tags.PCIE);
            case "gpu.xid" -> Set.of(Tags.GPU, Tags.KERNEL_LOG, Tags.DRIVER);
            case "dcgm.health" -> Set.of(Tags.GPU, Tags.DCGM);
            default -> Set.of(Tags.HOST);
        };
    }

    /** A finding about {@code entity}: "GPU n" is GPU n, "node" the node, anything else a mount. */
    static Finding finding(String entity, Severity s, String message) {
        Entity e = entity.equals("node") ? Entity.NODE
                : entity.startsWith("GPU ") ? Entity.gpu(Integer.parseInt(entity.substring(4)), null) : Entity.of(Entity.Kind.MOUNT, entity);
        return new Finding(null, e, s, message, Remedy.NONE, null, Map.of());
    }
}
