package dev.nhc.rules;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.ConfigProblem;
import dev.nhc.model.Severity;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mistakes in warn:/fail:/message: are refused at load time, through the real ConfigLoader, at the condition's file:line:column. */
class ConfigErrorTest {
    private final Rules rules = new Rules();

    private static final String CHECK = """
              - name: root-fs
                use: test.disk
            """;

    private static String only(ConfigException e) {
        assertEquals(1, e.problems().size(), () -> "expected one problem, got:\n" + e.getMessage());
        return e.problems().get(0).toString();
    }

    @Test
    void doubledOperatorIsRejectedAtTheCondition() {
        ConfigException e = rules.error(CHECK + "    fail: { used_percent: \">> 5\" }\n");
        assertEquals("nhc.yaml:5:27: check 'root-fs' fail: used_percent: unknown operator '>>' in '>> 5'"
                + " (use >, >=, <, <=, == or !=; ~ and !~ for text)", only(e));
    }

    @Test
    void rateUnitOnAPercentFieldIsRejectedAtTheCondition() {
        ConfigException e = rules.error(CHECK + "    warn:\n      used_percent: \"> 5 GB/s\"\n");
        String p = only(e);
        assertTrue(p.startsWith("nhc.yaml:6:21: check 'root-fs' warn: used_percent: field used_percent is in %; '5 GB/s' is not: unknown unit 'GB/s'"), p);
    }

    @Test
    void sizeOnAPercentFieldIsRejectedNamingBothUnits() {
        ConfigException e = rules.error(CHECK + "    fail: { used_percent: \"> 5GB\" }\n");
        assertEquals("nhc.yaml:5:27: check 'root-fs' fail: used_percent: field used_percent is in %; '5GB' is not (that is a size)", only(e));
    }

    /** 1e309 is Infinity as a double: a rule that can never fire must not load as if it could. */
    @Test
    void numbersBeyondADoubleAreRejectedAtTheCondition() {
        ConfigException e = rules.error(CHECK + "    fail: { used_percent: \"> 1e309%\", free_bytes: \"< 1e400GiB\" }\n");
        List<String> p = e.problems().stream().map(ConfigProblem::toString).toList();
        assertEquals(List.of(
                "nhc.yaml:5:27: check 'root-fs' fail: used_percent: '1e309%' is too large a number to compare with (at most about 1.7e308)",
                "nhc.yaml:5:51: check 'root-fs' fail: free_bytes: '1e400GiB' is too large a number to compare with (at most about 1.7e308)"), p);
        ConfigException bare = rules.error(CHECK + "    fail: { count: 1e309 }\n");
        assertTrue(only(bare).contains("'1e309' is too large a number to compare with"), only(bare));
    }

    @Test
    void percentWithAFractionLoads() throws Exception {
        var check = rules.checkYaml(CHECK + "    fail: { used_percent: \"> 99.9%\" }\n");
        assertEquals(Severity.FAIL, rules.one(check, Rules.obs("/", "used_percent", 99.95)).severity());
        // Not above 99.9 %, so not FAIL; the probe's default warn rule (> 85) still applies.
        assertEquals(Severity.WARN, rules.one(check, Rules.obs("/", "used_percent", 99.9)).severity());
    }

    @Test
    void unknownFieldSuggestsTheClosestAndListsThemAll() {
        ConfigException e = rules.error(CHECK + "    fail:\n      - { used_procent: \"> 95\" }\n");
        assertEquals("nhc.yaml:6:11: check 'root-fs' fail: unknown field 'used_procent' (did you mean 'used_percent'?);"
                + " probe test.disk reports used_percent, free_bytes, temp, errors, age, power, count, active, state, inode_percent, pattern, hits", only(e));
    }

    @Test
    void orderingOnBooleanAndTextFieldsIsRejected() {
        ConfigException e = rules.error(CHECK + "    fail: { active: \"> 1\", state: \"< b\" }\n");
        List<String> p = e.problems().stream().map(ConfigProblem::toString).toList();
        assertEquals(List.of(
                "nhc.yaml:5:21: check 'root-fs' fail: active: field active is true or false; '>' does not apply (write true, false, '== true' or '!= true')",
                "nhc.yaml:5:35: check 'root-fs' fail: state: field state is text; '<' compares numbers"
                        + " (write a plain value, '== x', '!= x', '~ regex' or '!~ regex')"), p);
    }

    @Test
    void numberForABooleanAndTextForANumberAreRejected() {
        ConfigException e = rules.error(CHECK + "    fail: { active: 1, temp: \"hot\" }\n");
        List<String> p = e.problems().stream().map(ConfigProblem::toString).toList();
        assertEquals("nhc.yaml:5:21: check 'root-fs' fail: active: field active is true or false; '1' is neither", p.get(0));
        assertTrue(p.get(1).startsWith("nhc.yaml:5:30: check 'root-fs' fail: temp: field temp is in °C (C); 'hot' is not:"), p.get(1));
    }

    @Test
    void regexOnANumberAndABadRegexAreRejected() {
        ConfigException e = rules.error(CHECK + "    fail:\n      temp: \"~ 9.\"\n      state: \"~ fail((\"\n");
        List<String> p = e.problems().stream().map(ConfigProblem::toString).toList();
        assertEquals(2, p.size(), e.getMessage());
        assertEquals("nhc.yaml:6:13: check 'root-fs' fail: temp: '~' matches text, but field temp is in °C (C); use >, >=, <, <=, == or !=", p.get(0));
        assertTrue(p.get(1).startsWith("nhc.yaml:7:14: check 'root-fs' fail: state: bad regular expression 'fail((': Unclosed group"), p.get(1));
    }

    @Test
    void singleEqualsSuggestsDoubleEquals() {
        ConfigException e = rules.error(CHECK + "    fail: { count: \"= 3\" }\n");
        assertTrue(only(e).contains("unknown operator '=' in '= 3' (did you mean '=='?)"), e.getMessage());
    }

    @Test
    void operatorWithoutAValueIsRejected() {
        ConfigException e = rules.error(CHECK + "    fail: { temp: \">=\" }\n");
        assertEquals("nhc.yaml:5:19: check 'root-fs' fail: temp: '>=' needs a value, e.g. \"> 90C\"", only(e));
    }

    @Test
    void emptyMapEmptyListAndEmptyConditionAreRejected() {
        assertEquals("nhc.yaml:5:11: check 'root-fs' fail: no conditions; write e.g. { used_percent: \"> 95\" },"
                + " or 'fail: none' to drop the probe's default fail rules", only(rules.error(CHECK + "    fail: {}\n")));
        assertTrue(only(rules.error(CHECK + "    warn: []\n")).startsWith("nhc.yaml:5:11: check 'root-fs' warn: the list of alternatives is empty"));
        assertTrue(only(rules.error(CHECK + "    warn: { temp: }\n")).startsWith("nhc.yaml:5:18: check 'root-fs' warn: temp: the condition is empty"));
    }

    @Test
    void aConditionWithoutAFieldIsRejected() {
        String p = only(rules.error(CHECK + "    fail: \"> 95\"\n"));
        assertTrue(p.startsWith("nhc.yaml:5:11: check 'root-fs' fail: expected a map of field: condition (all must hold)"), p);
        String q = only(rules.error(CHECK + "    fail:\n      - { temp: \"> 90C\" }\n      - \"> 95\"\n"));
        assertTrue(q.startsWith("nhc.yaml:7:9: check 'root-fs' fail: each item of the list is a map of field: condition"), q);
        String r = only(rules.error(CHECK + "    fail: { temp: [1, 2] }\n"));
        assertTrue(r.startsWith("nhc.yaml:5:19: check 'root-fs' fail: temp: a condition is a single value"), r);
    }

    @Test
    void messagePlaceholdersMustNameAFieldOrABuiltIn() {
        String p = only(rules.error(CHECK + "    fail: { temp: \"> 90C\" }\n    message: \"{entity} at {tmp} ({value}, {check})\"\n"));
        assertEquals("nhc.yaml:6:14: check 'root-fs' message: unknown placeholder '{tmp}' (did you mean 'temp'?)"
                + " (known: entity, check, value, used_percent, free_bytes, temp, errors, age, power, count, active, state, inode_percent, pattern, hits)", p);
    }

    @Test
    void everyMistakeOfAFileIsReportedInOneGo() {
        ConfigException e = rules.error(CHECK + "    fail: { used_percent: \">> 5\", nope: 1 }\n"
                + "  - name: other\n    use: test.disk\n    warn: { temp: \"> 5 GB/s\" }\n");
        assertEquals(List.of(5, 5, 8), e.problems().stream().map(p -> p.location().line()).toList(), e.getMessage());
    }

    @Test
    void brokenDefaultRuleOfAProbeIsReportedAgainstTheCheckThatUsesIt() {
        Probe broken = new Probe() {
            @Override
            public ProbeSpec spec() {
                return ProbeSpec.builder("test.broken", "a probe with a bad default").field("temp", Unit.CELSIUS, "t")
                        .rule(DefaultRule.fail(Map.of("temp", "> 5GiB"), null)).build();
            }

            @Override
            public ProbeResult probe(ProbeContext ctx) {
                return ProbeResult.of();
            }
        };
        ConfigLoader loader = new ConfigLoader(new ProbeRegistry(List.of(broken)), new RuleEngine(), List.of());
        ConfigException e = assertThrows(ConfigException.class,
                () -> loader.parse("x.yaml", "nhc: 1\nchecks:\n  - name: t\n    use: test.broken\n", null));
        assertEquals("x.yaml:3:5: check 't': probe test.broken default fail rule: temp: field temp is in °C (C); '5GiB' is not (that is a size)"
                + " (a bug of the probe)", only(e));
        // Replacing the broken default is the admin's way out.
        org.junit.jupiter.api.Assertions.assertDoesNotThrow(
                () -> loader.parse("x.yaml", "nhc: 1\nchecks:\n  - name: t\n    use: test.broken\n    fail: { temp: \"> 90C\" }\n", null));
    }

    @Test
    void aDefaultRuleNamingAnUndeclaredFieldIsFoundWhateverTheChecksParameters() {
        ProbeSpec spec = ProbeSpec.builder("test.undeclared", "default rules that name what the probe does not report")
                .param(dev.nhc.probe.ParamSpec.integer("count", "expected"))
                .field("temp", Unit.CELSIUS, "t")
                .rule(DefaultRule.fail(Map.of("temperature", "> 90"), "{entity} at {temp}"))
                .rule(DefaultRule.warn(List.of(Map.of("temp", "> 80"), Map.of("tmep", "< {with.count}")), "{entity} at {tmp}").when("count", 8L))
                .rule(DefaultRule.warn(Map.of("temp", "> 70"), null).when("mode", "x").remedyFrom("remedy"))
                .build();
        assertEquals(List.of(
                "default fail rule {temperature=> 90}: names undeclared field 'temperature'",
                "default warn rule [{temp=> 80}, {tmep=< {with.count}}]: names undeclared field 'tmep'",
                "default warn rule [{temp=> 80}, {tmep=< {with.count}}] message: unknown placeholder '{tmp}' (did you mean 'temp'?)"
                        + " (known: entity, check, value, temp, with.count)",
                "default warn rule {temp=> 70}: 'when' names undeclared parameter 'mode'",
                "default warn rule {temp=> 70}: remedy field 'remedy' is not declared"), RuleEngine.undeclaredNames(spec));
        assertEquals(List.of(), RuleEngine.undeclaredNames(DiskLikeProbe.SPEC));
    }
}
