package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each operator and unit, written in YAML as an admin would and judged against a reported value. */
class ConditionTest {
    private final Rules rules = new Rules();

    private boolean fires(String field, String condition, Object value) throws Exception {
        CheckConfig c = rules.check("fail: { " + field + ": " + condition + " }", "warn: none");
        Finding f = rules.one(c, Rules.obs("/", field, value));
        return f.severity() == Severity.FAIL;
    }

    @ParameterizedTest(name = "used_percent {0} with {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "'\"> 95\"'    | 95.1 | true", "'\"> 95\"'    | 95   | false",
            "'\">= 5\"'    | 5    | true", "'\">= 5\"'    | 4.99 | false",
            "'\"< 8\"'     | 7    | true", "'\"< 8\"'     | 8    | false",
            "'\"<= 1\"'    | 1    | true", "'\"<= 1\"'    | 1.01 | false",
            "'\"== 0\"'    | 0    | true", "'\"== 0\"'    | 0.5  | false",
            "'\"!= 0\"'    | 3    | true", "'\"!= 0\"'    | 0    | false",
            "'\">95\"'     | 96   | true",
            "'\"> 99.9%\"' | 99.95 | true", "'\"> 99.9%\"' | 99.9 | false",
            "'\"> -1\"'    | 0    | true",
            "'42'          | 42   | true", "'42'          | 43   | false",
            "'\"42\"'      | 42   | true",
    })
    void numericOperators(String condition, double value, boolean expected) throws Exception {
        assertEquals(expected, fires("used_percent", condition, value));
    }

    @Test
    void longValuesCompareExactlyPastDoublePrecision() throws Exception {
        long big = (1L << 53) + 1;
        assertEquals(true, fires("count", "\"> " + (big - 1) + "\"", big));
        assertEquals(false, fires("count", "\"== " + (big - 1) + "\"", big));
    }

    @ParameterizedTest(name = "{0} {1} with {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
            // bytes: IEC binary, SI decimal, bare K/M/G binary as in LBNL NHC, bare number = bytes
            "free_bytes | '\"< 10GiB\"'  | 10737418239 | true", "free_bytes | '\"< 10GiB\"'  | 10737418240 | false",
            "free_bytes | '\"< 10GB\"'   | 9999999999  | true", "free_bytes | '\"< 10GB\"'   | 10000000000 | false",
            "free_bytes | '\"> 512MiB\"' | 536870913   | true", "free_bytes | '\"> 1K\"'     | 1025        | true",
            "free_bytes | '\"> 1K\"'     | 1024        | false", "free_bytes | '\"> 1000\"'   | 1001        | true",
            // temperature, power, durations
            "temp       | '\"> 90C\"'    | 91          | true", "temp       | '\"> 90C\"'    | 90          | false",
            "temp       | '\"> 90\"'     | 90.5        | true",
            "power      | '\">= 300W\"'  | 300         | true", "power      | '\"> 300000mW\"' | 299      | false",
            "age        | '\"> 5m\"'     | 301         | true", "age        | '\"> 5m\"'     | 300         | false",
            "age        | '\"< 500ms\"'  | 0.4         | true", "age        | '\"> 1h\"'     | 3601        | true",
            "age        | '\"> 2d\"'     | 172800      | false",
            // rates: a per-minute field takes /min as is and converts /s and /h
            "errors     | '\"> 5/min\"'  | 5.5         | true", "errors     | '\"> 5/min\"'  | 5           | false",
            "errors     | '\"== 5/min\"' | 5           | true",
            "errors     | '\"> 1/s\"'    | 61          | true", "errors     | '\"> 1/s\"'    | 60          | false",
            "errors     | '\"> 60/h\"'   | 1.5         | true", "errors     | '\"> 60/h\"'   | 1           | false",
            "count      | '\"> 0\"'      | 1           | true", "count      | '\"> 0\"'      | 0           | false",
    })
    void unitsConvertToTheFieldsUnit(String field, String condition, double value, boolean expected) throws Exception {
        Object v = value == Math.rint(value) ? (Object) (long) value : (Object) value;
        assertEquals(expected, fires(field, condition, v));
    }

    @ParameterizedTest(name = "active: {0} with {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "false          | false | true", "false          | true  | false",
            "true           | true  | true", "no             | false | true",
            "'\"== true\"'  | true  | true", "'\"!= true\"'  | false | true",
            "'\"!= true\"'  | true  | false", "'\"false\"'    | false | true",
    })
    void booleans(String condition, boolean value, boolean expected) throws Exception {
        assertEquals(expected, fires("active", condition, value));
    }

    @ParameterizedTest(name = "state: {0} with {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "failed                 | failed     | true", "failed                 | failing    | false",
            "'\"failed\"'           | failed     | true", "'\"== failed\"'        | failed     | true",
            "'\"!= active\"'        | inactive   | true", "'\"!= active\"'        | active     | false",
            "'\"~ fail\"'           | has failed | true", "'\"~ ^fail$\"'         | failed     | false",
            "'\"~ ^fail(ed)?$\"'    | failed     | true", "'\"!~ ^(active|idle)$\"' | idle     | false",
            "'\"!~ ^(active|idle)$\"' | degraded | true", "yes                    | yes        | true",
            "8                      | 8          | true",
    })
    void text(String condition, String value, boolean expected) throws Exception {
        assertEquals(expected, fires("state", condition, value));
    }

    /** A text field holds what users shaped (a process or file name): a regex that backtracks without end on it decides nothing, either way. */
    @Test
    void aRegexThatGivesUpOnAValueNeitherFiresNorClears() throws Exception {
        String shaped = "job " + "a".repeat(40) + "!";
        assertEquals(false, fires("state", "\"~ ^job (.*a){20}x\"", shaped));
        assertEquals(false, fires("state", "\"!~ ^job (.*a){20}x\"", shaped), "a negated one does not fire either");
    }
}
