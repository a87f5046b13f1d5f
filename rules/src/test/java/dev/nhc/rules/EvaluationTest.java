package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.engine.config.Location;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.Params;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.nhc.rules.Rules.obs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Per-entity judgement: map = all, list = any, default rules and their override, messages, remedies, missing fields. */
class EvaluationTest {
    private final Rules rules = new Rules();

    private Severity severity(CheckConfig c, Object... fields) {
        return rules.one(c, obs("/", fields)).severity();
    }

    @Test
    void fieldsReadAreThoseTheConditionsTestAndTheMessagesPrint() throws Exception {
        assertEquals(java.util.Set.of("used_percent", "errors", "active"),
                rules.compile(rules.check()).fieldsRead(), "the default rules");
        assertEquals(java.util.Set.of("temp"),
                rules.compile(rules.check("fail: { temp: \"> 90C\" }", "warn: none")).fieldsRead());
        assertEquals(java.util.Set.of("temp", "power", "free_bytes"),
                rules.compile(rules.check("fail: { temp: \"> 90C\" }", "warn: { power: \"> 700W\" }",
                        "message: \"{entity} {free_bytes} {check}\"")).fieldsRead());
    }

    @Test
    void aMapNeedsAllItsConditions() throws Exception {
        CheckConfig c = rules.check("fail: { used_percent: \"> 90\", free_bytes: \"< 10GiB\" }", "warn: none");
        assertEquals(Severity.FAIL, severity(c, "used_percent", 91.0, "free_bytes", 5L << 30));
        assertEquals(Severity.PASS, severity(c, "used_percent", 91.0, "free_bytes", 20L << 30));
        assertEquals(Severity.PASS, severity(c, "used_percent", 50.0, "free_bytes", 5L << 30));
    }

    @Test
    void aListNeedsAnyOfItsMaps() throws Exception {
        CheckConfig c = rules.check("fail:", "  - { used_percent: \"> 95\" }", "  - { free_bytes: \"< 1GiB\", active: true }", "warn: none");
        assertEquals(Severity.FAIL, severity(c, "used_percent", 96.0, "free_bytes", 5L << 30, "active", true));
        assertEquals(Severity.FAIL, severity(c, "used_percent", 10.0, "free_bytes", 1L << 20, "active", true));
        assertEquals(Severity.PASS, severity(c, "used_percent", 10.0, "free_bytes", 1L << 20, "active", false));
        assertEquals(Severity.PASS, severity(c, "used_percent", 10.0, "free_bytes", 5L << 30, "active", true));
    }

    @Test
    void withoutWarnOrFailTheProbesDefaultRulesApply() throws Exception {
        CheckConfig c = rules.check();
        Finding full = rules.one(c, obs("/scratch", "used_percent", 97.25));
        assertEquals(Severity.FAIL, full.severity());
        assertEquals("/scratch is 97.25% full", full.message());
        assertEquals(Remedy.NONE, full.remedy());

        Finding warn = rules.one(c, obs("/scratch", "used_percent", 90L));
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("/scratch: used_percent 90% > 85%", warn.message());

        Finding errors = rules.one(c, obs("/scratch", "used_percent", 10L, "errors", 12.5));
        assertEquals(Severity.FAIL, errors.severity());
        assertEquals("/scratch: errors 12.5/min > 10/min", errors.message());
        assertEquals(Remedy.HARDWARE, errors.remedy());
        assertEquals(SlurmState.FAIL, errors.slurmState());
        assertTrue(errors.latched(), "a probe's latching rule makes latched findings");
        assertFalse(full.latched(), "its other rules do not");

        assertEquals("/scratch: active is false", rules.one(c, obs("/scratch", "active", false)).message());
        assertEquals(Severity.PASS, severity(c, "used_percent", 10L, "errors", 0.0, "active", true));
        assertEquals("used_percent 90% > 85%", rules.one(c, obs("node", "used_percent", 90L)).message(), "the whole node goes without saying");
    }

    @Test
    void configuredFailReplacesEveryDefaultFailRuleAndKeepsDefaultWarns() throws Exception {
        CheckConfig c = rules.check("fail: { temp: \"> 90C\" }");
        assertEquals(Severity.PASS, severity(c, "errors", 500.0, "active", false, "used_percent", 50L));
        assertEquals(Severity.WARN, severity(c, "used_percent", 99L));
        assertEquals(Severity.FAIL, severity(c, "temp", 95L, "used_percent", 10L));
        assertFalse(rules.one(c, obs("/", "temp", 95L, "errors", 500.0)).latched(),
                "a config's own fail: never stands for a latched fault: only the probe knows what it latched");
    }

    @Test
    void configuredWarnReplacesEveryDefaultWarnRuleAndKeepsDefaultFails() throws Exception {
        CheckConfig c = rules.check("warn: { temp: \"> 80C\" }");
        assertEquals(Severity.PASS, severity(c, "used_percent", 90L));
        assertEquals(Severity.WARN, severity(c, "used_percent", 90L, "temp", 85L));
        assertEquals(Severity.FAIL, severity(c, "used_percent", 97L, "temp", 85L));
    }

    @Test
    void noneDropsTheDefaultsOfThatSeverity() throws Exception {
        CheckConfig c = rules.check("fail: none");
        assertEquals(Severity.WARN, severity(c, "used_percent", 99L, "active", false));
        CheckConfig quiet = rules.check("fail: none", "warn: none");
        Finding f = rules.one(quiet, obs("/", "used_percent", 99L));
        assertEquals(Severity.PASS, f.severity());
        assertEquals("/: ok", f.message());
    }

    @Test
    void failIsJudgedBeforeWarn() throws Exception {
        CheckConfig c = rules.check("warn: { temp: \"> 80C\" }", "fail: { temp: \"> 90C\" }");
        assertEquals(Severity.FAIL, severity(c, "temp", 95L));
        assertEquals(Severity.WARN, severity(c, "temp", 85L));
    }

    @Test
    void theChecksTemplateWinsOverTheRulesAndFillsValuesWithUnits() throws Exception {
        CheckConfig c = rules.check("fail: { free_bytes: \"< 2GiB\" }",
                "message: \"{check}: {entity} has {free_bytes} free ({used_percent} used, value {value}, temp {temp})\"");
        Finding f = rules.one(c, obs("/data", "free_bytes", 3L << 29, "used_percent", 98.5));
        assertEquals("c: /data has 1.5 GiB free (98.5% used, value 1.5 GiB, temp n/a)", f.message());
        // The check's template also replaces a default rule's own (warn was not overridden).
        Finding w = rules.one(c, obs("/data", "free_bytes", 10L << 30, "used_percent", 90L));
        assertEquals(Severity.WARN, w.severity());
        assertEquals("c: /data has 10.0 GiB free (90% used, value 90%, temp n/a)", w.message());
    }

    @Test
    void aPluralPlaceholderPrintsTheWordThatAgreesWithTheNumber() throws Exception {
        CheckConfig c = rules.check("fail: { count: \"> 0\" }", "warn: none", "message: \"{count} {count|file was|files were} found\"");
        assertEquals("1 file was found", rules.one(c, obs("/", "count", 1L)).message());
        assertEquals("2 files were found", rules.one(c, obs("/", "count", 2L)).message());
        assertEquals(java.util.Set.of("count"), rules.compile(c).fieldsRead());
    }

    @Test
    void braceTextThatIsNoPlaceholderIsKept() throws Exception {
        CheckConfig c = rules.check("fail: { state: \"~ ^fail\" }", "message: \"unit {state} is {bad name} {} {\"");
        assertEquals("unit failed is {bad name} {} {", rules.one(c, obs("u", "state", "failed")).message());
        assertEquals("u: state 'failed' matches /^fail/",
                rules.one(rules.check("fail: { state: \"~ ^fail\" }"), obs("u", "state", "failed")).message());
        assertEquals("u: state is 'inactive', not 'active'",
                rules.one(rules.check("fail: { state: \"!= active\" }"), obs("u", "state", "inactive")).message());
    }

    @Test
    void theChecksRemedyAndSlurmStateOverrideTheRules() throws Exception {
        CheckConfig c = rules.check("remedy: reboot", "slurm_state: drain");
        Finding f = rules.one(c, obs("/", "errors", 20L));
        assertEquals(Remedy.REBOOT, f.remedy());
        assertEquals(SlurmState.DRAIN, f.slurmState());
        Finding w = rules.one(c, obs("/", "used_percent", 90L));
        assertEquals(Severity.WARN, w.severity());
        assertEquals(Remedy.REBOOT, w.remedy());
        assertNull(w.slurmState(), "a warning asks Slurm for nothing");
        Finding plain = rules.one(rules.check("fail: { temp: \"> 90C\" }"), obs("/", "temp", 99L));
        assertEquals(Remedy.NONE, plain.remedy());
        assertNull(plain.slurmState(), "no slurm_state set: the config's default applies downstream");
    }

    @Test
    void observedHoldsTheDecidingFieldsFirst() throws Exception {
        CheckConfig c = rules.check("fail: { temp: \"> 90C\" }");
        Finding f = rules.one(c, obs("gpu0", "used_percent", 1L, "temp", 95L, "state", "ok"));
        assertEquals(List.of("temp", "used_percent", "state"), List.copyOf(f.observed().keySet()));
        assertEquals(95L, f.observed().get("temp"));
    }

    @Test
    void aPassSaysWhatTheRulesLookedAt() throws Exception {
        Finding f = rules.one(rules.check(), obs("/", "used_percent", 42L, "free_bytes", 100L << 30, "errors", 0.0, "active", true));
        assertEquals(Severity.PASS, f.severity());
        assertEquals("/: used_percent 42% (fail if > 95%, warn if > 85%), errors 0/min (fail if > 10/min), active true (fail if false)",
                f.message(), "each value with the limits it was held to");
        assertEquals("c", f.check());
        assertEquals("/", f.entity().label());
    }

    @Test
    void aClauseOverAnAbsentFieldIsSkippedAndOthersStillDecide() throws Exception {
        CheckConfig c = rules.check("fail:", "  - { temp: \"> 80C\" }", "  - { used_percent: \"> 95\" }", "warn: none");
        assertEquals(Severity.FAIL, severity(c, "used_percent", 97L));
        assertEquals(Severity.PASS, severity(c, "used_percent", 50L));
        // A false condition decides its map even when another field of it is missing.
        CheckConfig both = rules.check("fail: { used_percent: \"> 90\", temp: \"> 80C\" }", "warn: none");
        Finding f = rules.one(both, obs("/", "used_percent", 50L));
        assertEquals(Severity.PASS, f.severity());
        assertEquals("/: used_percent 50% (fail if > 90% and temp > 80C)", f.message(), "a map of conditions is shown whole");
    }

    @Test
    void fieldsAbsentAsUnsupportedAreNoNoiseButAnEntityWithNoFieldsIsUnknown() throws Exception {
        CheckConfig c = rules.check("fail: { temp: \"> 90C\" }", "warn: { power: \"> 300W\" }");
        Finding unsupported = rules.one(c, obs("gpu3", "used_percent", 5L));
        assertEquals(Severity.PASS, unsupported.severity());
        assertEquals("no rule applies: temp, power not reported", unsupported.message());

        Finding nothing = rules.one(c, obs("gpu3"));
        assertEquals(Severity.UNKNOWN, nothing.severity());
        assertEquals("field temp not reported for gpu3", nothing.message());
    }

    @Test
    void aDeclaredFieldThatIsAbsentMakesItsRuleUnknownNamingTheFieldAndTheEntity() throws Exception {
        Finding f = rules.one(rules.check(), obs("/scratch", "active", true));
        assertEquals(Severity.UNKNOWN, f.severity(), "silence is not health: " + f);
        assertEquals("field used_percent not reported for /scratch (the fail rule used_percent > 95% needs it)", f.message());
        // A rule that can be judged and fires still decides.
        assertEquals(Severity.FAIL, severity(rules.check(), "errors", 12.0));
        CheckConfig c = rules.check("fail: { used_percent: \"> 95\" }", "warn: { temp: \"> 80C\" }");
        assertEquals(Severity.WARN, severity(c, "temp", 85L));
        assertEquals(Severity.UNKNOWN, severity(c, "temp", 70L));
    }

    @Test
    void aNumberReportedAsTextIsUnknownNotPass() throws Exception {
        Finding f = rules.one(rules.check(), obs("/x", "used_percent", "full", "active", true));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("field used_percent of /x is 'full', not a number (the fail rule used_percent > 95% needs it)", f.message());
    }

    @Test
    void aFieldDeclaredForAnotherKindOfEntityIsNotMissing() throws Exception {
        CheckConfig c = rules.check("fail: { inode_percent: \"> 90\" }", "warn: none");
        assertEquals(Severity.PASS, rules.one(c, obs("gpu3", "used_percent", 5L)).severity(), "not reported for this kind");
        Finding mount = rules.one(c, obs(Map.of("used_percent", 5L)));
        assertEquals(Severity.UNKNOWN, mount.severity(), "reported for mounts: " + mount);
        assertEquals("field inode_percent not reported for / (the fail rule inode_percent > 90% needs it)", mount.message());
    }

    @Test
    void aFieldReportedBesideAnotherIsMissingOnlyWhereThatOneIs() throws Exception {
        CheckConfig c = rules.check("fail: { hits: \"> 0\" }", "warn: none");
        assertEquals(Severity.PASS, rules.one(c, obs("reading", "used_percent", 5L)).severity(), "not a pattern");
        Finding f = rules.one(c, obs("oom", "used_percent", 5L, "pattern", "Out of memory"));
        assertEquals(Severity.UNKNOWN, f.severity(), f.toString());
        assertEquals("field hits not reported for oom (the fail rule hits > 0 needs it)", f.message());
        assertEquals(Severity.FAIL, rules.one(c, obs("oom", "used_percent", 5L, "pattern", "Out of memory", "hits", 2L)).severity());
    }

    @Test
    void nothingObservedAndNothingFoundIsAnEmptyList() throws Exception {
        CheckConfig c = rules.check();
        assertEquals(List.of(), rules.evaluate(c, StateSection.detached("t")));
    }
}
