package dev.nhc.cli.lbnl;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** LBNL match expressions over lines, as one Java regex over the whole text: what they match and what they must not. */
class LineMatchTest {
    private static boolean finds(String regex, String text) {
        return Pattern.compile(regex, Pattern.MULTILINE).matcher(text).find();
    }

    @Test
    void posixClassesBecomeJavaClassesThatStayWithinALine() {
        String r = LineMatch.toRegex("/^[[:space:]]*UP /", false);
        assertTrue(finds(r, "eth3: flags\n   UP BROADCAST RUNNING\n"), r);
        assertFalse(finds(r, "eth3:\n\nDOWN UP \n"), "[[:space:]] must not be read as the characters ':spae'");
        String digits = LineMatch.toRegex("/^GPU [[:digit:]]+:/", false);
        assertTrue(finds(digits, "GPU 0: NVIDIA H100\n"));
        assertFalse(finds(digits, "GPU x: none\n"));
    }

    @Test
    void aRegexMatchesWithinOneLineOnly() {
        String r = LineMatch.toRegex("/a[^b]c/", false);
        assertTrue(finds(r, "axc\n"));
        assertFalse(finds(r, "a\nc\n"), "a negated class must not cross lines");
        String s = LineMatch.toRegex("/a\\sb/", false);
        assertFalse(finds(s, "a\nb\n"), "\\s must not cross lines");
    }

    @Test
    void fileLinesAreTrimmedByReadSoAnchorsAllowSurroundingBlanks() {
        String r = LineMatch.toRegex("/^root:/", true);
        assertTrue(finds(r, "   root:x:0:0\n"));
        String glob = LineMatch.toRegex("sshd:*", true);
        assertTrue(finds(glob, "\tsshd:x:74:74::/:/sbin/nologin  \n"));
        assertFalse(finds(glob, "xsshd:x\n"));
        String exact = LineMatch.toRegex("root", false);
        assertTrue(finds(exact, "a\nroot\nb"));
        assertFalse(finds(exact, "a\n root\nb"), "command output keeps its blanks");
    }

    @Test
    void globClassesAndSpecialCharacters() {
        String r = LineMatch.toRegex("[!x]y.z(1)*", false);
        assertTrue(finds(r, "ay.z(1) and more\n"));
        assertFalse(finds(r, "xy.z(1)\n"));
        assertFalse(finds(r, "ayxz(1)\n"), "'.' is literal in a glob");
    }

    @Test
    void whatHasNoSingleRegexFormIsNull() {
        assertNull(LineMatch.toRegex("!/localhost/", true), "negation");
        assertNull(LineMatch.toRegex("{n[1-4]}", true), "pdsh range");
        assertNull(LineMatch.toRegex("/(a)\\1/", true), "back reference");
        assertNull(LineMatch.toRegex("/a^b/", true), "an anchor in the middle");
        assertNull(LineMatch.toRegex("@(a|b)", true), "extglob");
        assertEquals("^[ \\t]*root:x:0:0:", LineMatch.toRegex("/^root:x:0:0:/", true));
    }
}
