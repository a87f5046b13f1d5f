package dev.nhc.engine.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostSelectorTest {

    private static HostSelector sel(String... patterns) {
        return HostSelector.parse(List.of(patterns), Map.of("gpu", List.of("gpu-[001-128]"), "login", List.of("login*")));
    }

    @Test
    void zeroPaddedRangesMatchExactlyAsInSlurm() {
        HostSelector s = sel("gpu-[001-128]");
        assertTrue(s.matches("gpu-001"));
        assertTrue(s.matches("gpu-128"));
        assertFalse(s.matches("gpu-129"));
        assertFalse(s.matches("gpu-1"), "padding is part of the name");
        assertFalse(s.matches("gpu-0001"));
        assertFalse(s.matches("xgpu-001"));
    }

    @Test
    void unpaddedRangesAndLists() {
        HostSelector s = sel("node[1-4,7]");
        assertTrue(s.matches("node3"));
        assertTrue(s.matches("node7"));
        assertFalse(s.matches("node5"));
        assertFalse(s.matches("node03"));
    }

    @Test
    void aPatternWithADotIsMatchedAgainstTheFullHostName() {
        HostSelector domain = sel("x*.nifl.fysik.dtu.dk");
        assertTrue(domain.matches("x001", "x001.nifl.fysik.dtu.dk"));
        assertFalse(domain.matches("x001", "x001"), "a host whose kernel name has no domain is not in it, as in LBNL NHC");
        assertFalse(domain.matches("x001", "x001.other.org"));
        assertTrue(sel("x*").matches("x001", "x001.nifl.fysik.dtu.dk"), "a pattern without a dot still sees the short name");
        assertFalse(sel("!*.nifl.fysik.dtu.dk").matches("x001", "x001.nifl.fysik.dtu.dk"));
        HostSelector grouped = HostSelector.parse(List.of("nifl"), Map.of("nifl", List.of("*.nifl.fysik.dtu.dk")));
        assertTrue(grouped.matches("x001", "x001.nifl.fysik.dtu.dk"), "through a hostgroup too");
    }

    @Test
    void globsHostgroupsAndNegation() {
        assertTrue(sel("login*").matches("login2"));
        assertTrue(sel("gpu").matches("gpu-042"));
        assertFalse(sel("gpu", "!gpu-042").matches("gpu-042"));
        assertTrue(sel("gpu", "!gpu-042").matches("gpu-043"));
        assertTrue(sel("!login").matches("gpu-001"), "only negations: everything else");
        assertFalse(sel("!login").matches("login1"));
        assertTrue(sel("gpu", "login").matches("login9"), "a list means any of");
    }

    @Test
    void aHostgroupWithANegationIsASelectorOfItsOwn() {
        Map<String, List<String>> groups = Map.of("gpu", List.of("gpu-[01-08]", "!gpu-03"));
        HostSelector gpu = HostSelector.parse(List.of("gpu"), groups);
        assertTrue(gpu.matches("gpu-02"));
        assertFalse(gpu.matches("gpu-03"), "the group leaves gpu-03 out");
        assertFalse(gpu.matches("login1"));
        HostSelector notGpu = HostSelector.parse(List.of("!gpu"), groups);
        assertTrue(notGpu.matches("login1"));
        assertTrue(notGpu.matches("gpu-03"), "not in the group, so selected by its negation");
        assertFalse(notGpu.matches("gpu-02"));
        HostSelector both = HostSelector.parse(List.of("gpu", "gpu-03"), groups);
        assertTrue(both.matches("gpu-03"), "a list means any of: the group or gpu-03 itself");
    }

    @Test
    void aGroupWithoutPatternsSelectsNoHost() {
        assertFalse(HostSelector.parse(List.of("gpu"), Map.of("gpu", List.of())).matches("gpu-01"));
    }

    @Test
    void anInvalidPatternInAGroupNamesTheGroup() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> HostSelector.parse(List.of("gpu"), Map.of("gpu", List.of("gpu;rm"))));
        assertTrue(e.getMessage().startsWith("hostgroup 'gpu': "), e.getMessage());
    }

    @Test
    void invalidPatternsAreExplained() {
        assertNotNull(HostSelector.validate("gpu-[001-"));
        assertNotNull(HostSelector.validate("gpu-[a-b]"));
        assertNotNull(HostSelector.validate("gpu-[9-1]"));
        assertNotNull(HostSelector.validate("gpu;rm"));
        assertNull(HostSelector.validate("!gpu-[001-128]"));
    }
}
