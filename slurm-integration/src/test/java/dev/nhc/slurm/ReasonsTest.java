package dev.nhc.slurm;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReasonsTest {
    static Finding fail(String check, String entity, String message) {
        return new Finding(check, dev.nhc.model.Entity.of(dev.nhc.model.Entity.Kind.OTHER, entity), Severity.FAIL, message, null, null, null);
    }

    @Test
    void oneCheck() {
        assertEquals("NHC: root-fs: used 97% of /", Reasons.of(List.of(fail("root-fs", "/", "used 97% of /"))));
    }

    @Test
    void everyFailingCheckIsNamedOnceWithItsMessages() {
        String r = Reasons.of(List.of(fail("gpu-ecc", "GPU 1", "GPU 1: 3 DBE"), fail("gpu-ecc", "GPU 4", "GPU 4: 1 DBE"),
                fail("root-fs", "/", "used 97% of /")));
        assertEquals("NHC: gpu-ecc: GPU 1: 3 DBE, GPU 4: 1 DBE; root-fs: used 97% of /", r);
    }

    @Test
    void newlinesQuotesBracketsAndNonAsciiAreCleaned() {
        String r = Reasons.of(List.of(fail("x", "n", "line1\nline2\t\"quoted\" [root@host] 90\u00b0C \\ end")));
        assertEquals("NHC: x: line1 line2 'quoted' (root@host) 90C / end", r);
    }

    /** sinfo and scontrol show anything past ASCII as '?': nhc writes it in ASCII itself. */
    @Test
    void typographyAndAccentsAreWrittenInAscii() {
        String r = Reasons.of(List.of(fail("xid", "GPU 3", "GPU 3: XID 79 \u00d72 \u2014 stays failing\u2026 \u00b1 3% \u2265 5, caf\u00e9 \u2018x\u2019 \u4e2d")));
        assertEquals("NHC: xid: GPU 3: XID 79 x2 - stays failing... +/- 3% >= 5, cafe 'x' ?", r);
    }

    @Test
    void aLongReasonIsBoundedAndSaysHowManyChecksItLeftOut() {
        List<Finding> many = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            many.add(fail("check-" + i, "n", "something went wrong with a fairly long explanation number " + i));
        }
        String r = Reasons.of(many);
        assertTrue(r.length() <= Reasons.MAX_LENGTH, r.length() + ": " + r);
        assertTrue(r.startsWith("NHC: check-0: "), r);
        assertTrue(r.matches(".*\\(\\+\\d+ more\\)$"), r);

        String one = Reasons.of(List.of(fail("huge", "n", "y".repeat(1000))));
        assertEquals(Reasons.MAX_LENGTH, one.length());
        assertTrue(one.endsWith("..."));
    }
}
