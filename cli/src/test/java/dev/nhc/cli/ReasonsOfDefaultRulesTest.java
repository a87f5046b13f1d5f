package dev.nhc.cli;

import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.slurm.Reasons;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every default rule's message of every probe nhc ships becomes a Slurm reason that sinfo and
 * scontrol show as written: printable ASCII, with no character of the message lost to a '?'.
 */
class ReasonsOfDefaultRulesTest {

    @Test
    void everyDefaultRulesMessageIsAReasonInAscii() {
        List<String> lost = new ArrayList<>();
        int messages = 0;
        for (Map.Entry<String, Probe> p : ProbeRegistry.load().all().entrySet()) {
            for (DefaultRule r : p.getValue().spec().defaultRules()) {
                if (r.message() == null) {
                    continue;
                }
                messages++;
                String reason = Reasons.of(List.of(new Finding("check", Entity.NODE, Severity.FAIL, r.message(), Remedy.NONE, null, Map.of())));
                assertTrue(reason.chars().allMatch(c -> c >= 0x20 && c < 0x7f), p.getKey() + ": " + reason);
                if (count(reason, '?') > count(r.message(), '?')) {
                    lost.add(p.getKey() + ": " + r.message() + " -> " + reason);
                }
            }
        }
        assertTrue(messages > 50, "the probes' default rules: " + messages);
        assertEquals(List.of(), lost, "characters sinfo would show as '?'");
    }

    private static long count(String s, char c) {
        return s.chars().filter(x -> x == c).count();
    }
}
