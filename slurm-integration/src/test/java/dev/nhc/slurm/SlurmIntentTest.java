package dev.nhc.slurm;

import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The Slurm column of docs/DESIGN.md's severity table, one row per case. */
class SlurmIntentTest {
    private static Verdict verdictOf(Severity s, SlurmState findingState) {
        Finding f = new Finding("c", Entity.NODE, s, "c is " + s.label(), Remedy.NONE, findingState, Map.of());
        CheckResult c = new CheckResult("c", "test", Set.of(), CheckStatus.COMPLETED, s, 1, List.of(f), List.of(), null);
        return SeverityPolicy.STANDARD.verdict("n1", Instant.EPOCH, 1, List.of(c));
    }

    /** severity | slurm_state of the failing finding | Slurm intent | Slurm state. */
    @ParameterizedTest(name = "{0} {1}: slurm {2} {3}")
    @CsvSource({
            "PASS,    ,     RELEASE, ",
            "WARN,    ,     NOTHING, ",
            "UNKNOWN, ,     NOTHING, ",
            "FAIL,    ,     HOLD,    DRAIN",
            "FAIL,    FAIL, HOLD,    FAIL",
    })
    void theTable(Severity severity, SlurmState findingState, SlurmIntent.Kind kind, SlurmState state) {
        SlurmIntent i = SlurmIntent.of(verdictOf(severity, findingState), SlurmState.DRAIN);
        assertEquals(kind, i.kind());
        assertEquals(state, i.state());
    }

    @Test
    void failureStateFailTurnsEveryDrainIntoFail() {
        SlurmIntent i = SlurmIntent.of(verdictOf(Severity.FAIL, null), SlurmState.FAIL);
        assertEquals(SlurmState.FAIL, i.state());
        assertEquals(1, i.failures().size());
    }
}
