package dev.nhc.text;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BoundedRegexTest {

    @Test
    void ordinaryPatternsMatchOrNotAsJavaSays() {
        Pattern p = Pattern.compile("EXT4-fs \\(\\S+\\): Remounting");
        assertEquals(BoundedRegex.Result.MATCH, BoundedRegex.lookingAt(p, "EXT4-fs (sda1): Remounting filesystem read-only"));
        assertEquals(BoundedRegex.Result.NO_MATCH, BoundedRegex.lookingAt(p, "x EXT4-fs (sda1): Remounting filesystem read-only"));
        assertEquals(BoundedRegex.Result.MATCH, BoundedRegex.find(p, "x EXT4-fs (sda1): Remounting filesystem read-only"));
        assertEquals(BoundedRegex.Result.NO_MATCH, BoundedRegex.find(Pattern.compile("(?i)error|fail|fatal"), "x".repeat(65_536)));
    }

    /** A leading .* makes a search quadratic (6 million reads on a 2 KiB line) and changes nothing about what it finds: dropped. */
    @Test
    void aSearchPatternLosesItsLeadingWildcardAndSoStaysWithinTheBound() {
        String line = "# PermitRootLogin no " + "y".repeat(20_000);
        assertEquals(BoundedRegex.Result.GAVE_UP, BoundedRegex.find(Pattern.compile(".*PermitRootLogin yes"), line));
        assertEquals(BoundedRegex.Result.NO_MATCH, BoundedRegex.find(BoundedRegex.forSearch(".*PermitRootLogin yes", 0), line));
        assertEquals(BoundedRegex.Result.MATCH, BoundedRegex.find(BoundedRegex.forSearch(".*?PermitRootLogin no", 0), line));
        assertEquals("a|b", BoundedRegex.forSearch(".*a|b", 0).pattern());
        assertEquals(".*+a", BoundedRegex.forSearch(".*+a", 0).pattern(), "possessive: it would take the whole line");
        assertEquals(".*", BoundedRegex.forSearch(".*", 0).pattern());
    }

    /**
     * Over a line a user shaped, searches Java's engine cannot cut short (it does memoise simple
     * nested loops such as (a+)+ since Java 9): polynomial of degree 20, and nested loops under a
     * back reference. Given up on, not waited for.
     */
    @Test
    void catastrophicBacktrackingGivesUp() {
        String line = "traps: a[1] general protection fault in " + "a".repeat(40) + "!";
        assertEquals(BoundedRegex.Result.GAVE_UP, BoundedRegex.lookingAt(Pattern.compile("traps: \\S+ general protection fault in (.*a){20}x"), line));
        assertEquals(BoundedRegex.Result.GAVE_UP, BoundedRegex.find(Pattern.compile("((a+)+)\\1!x"), line));
    }

    /** Java's engine recurses once per repetition of an alternation: a long line overflows the stack; that is giving up too. */
    @Test
    void aStackOverflowInTheEngineGivesUp() {
        assertEquals(BoundedRegex.Result.GAVE_UP, BoundedRegex.lookingAt(Pattern.compile("(x|y)*z"), "x".repeat(1 << 20)));
    }

    @Test
    void theBoundGrowsWithTheText() {
        assertEquals(BoundedRegex.BASE_STEPS, BoundedRegex.budget(0));
        assertEquals(BoundedRegex.BASE_STEPS + 100 * BoundedRegex.STEPS_PER_CHAR, BoundedRegex.budget(100));
    }
}
