package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ParamConverterPercentTest {
    private static final List<ParamSpec<?>> SPECS = List.of(ParamSpec.percent("tolerance", "how far off").defaultValue(5.0));

    private static Params convert(String yaml, Problems problems) throws ConfigException {
        ConfigNode node = YamlReader.read("t.yaml", yaml);
        return ParamConverter.convert("check 'mem' (memory) with:", node, node.location(), SPECS, problems);
    }

    @Test
    void acceptsPercentWithAndWithoutSign() throws Exception {
        Problems problems = new Problems();
        assertEquals(2.5, convert("tolerance: 2.5%", problems).raw("tolerance"));
        assertEquals(3.0, convert("tolerance: 3", problems).raw("tolerance"));
        assertEquals(7.0, convert("tolerance: '7'", problems).raw("tolerance"));
        assertTrue(problems.isEmpty(), problems.list().toString());
    }

    @Test
    void defaultAppliesWhenAbsent() throws Exception {
        Problems problems = new Problems();
        assertEquals(5.0, convert("{}", problems).raw("tolerance"));
    }

    @Test
    void rejectsOtherUnitsGarbageAndNegativesWithLocation() throws Exception {
        for (String bad : List.of("tolerance: 5GiB", "tolerance: lots", "tolerance: -1%", "tolerance: [1, 2]")) {
            Problems problems = new Problems();
            Params p = convert(bad, problems);
            assertEquals(1, problems.list().size(), bad);
            ConfigProblem problem = problems.list().get(0);
            assertTrue(problem.message().contains("'tolerance' in check 'mem' (memory) with:"), problem.message());
            assertEquals(1, problem.location().line(), bad);
            assertEquals(null, p.raw("tolerance"));
        }
    }
}
