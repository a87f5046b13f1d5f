package dev.nhc.cli.lbnl;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node's sysconfig read, and check lines expanded with it as bash would expand them. */
class ShellExpansionTest {
    private static final Sysconfig NODE = Sysconfig.parse("/etc/sysconfig/nhc", """
            # per-node values
            NHC_SOCKETS=2
            export NHC_CORES=32
            NHC_ETH0="eth0"
            NHC_TWO='a b'
            NHC_EMPTY=
            NHC_SEMI='x;y'
            """);

    private static String expand(String check, Set<String> assigned) {
        return ShellExpansion.conditional(NODE.expand(check, assigned, n -> n.startsWith("HW_")).check());
    }

    @Test
    void plainAssignmentsAreReadAndAnythingElseIsRefusedWithItsLine() {
        assertEquals(Map.of("NHC_SOCKETS", "2", "NHC_CORES", "32", "NHC_ETH0", "eth0", "NHC_TWO", "a b", "NHC_EMPTY", "", "NHC_SEMI", "x;y"), NODE.values());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Sysconfig.parse("sys", "A=1\n. /etc/nhc/more\n"));
        assertTrue(e.getMessage().startsWith("sys:2: not a plain assignment"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Sysconfig.parse("sys", "CORES=$(nproc)\n"));
        assertThrows(IllegalArgumentException.class, () -> Sysconfig.parse("sys", "A=(1 2)\n"));
    }

    @Test
    void variablesAreExpandedAsBashWouldWithWordSplittingAndQuotes() {
        assertEquals("check_hw_cpuinfo 2 32 ", expand("check_hw_cpuinfo $NHC_SOCKETS ${NHC_CORES} $NHC_EMPTY", Set.of()));
        assertEquals("check_x a b \"a b\" 'x;y'", expand("check_x $NHC_TWO \"$NHC_TWO\" $NHC_SEMI", Set.of()));
        assertEquals("check_x '$NHC_CORES'", expand("check_x '$NHC_CORES'", Set.of()), "single quotes are literal");
        assertEquals("check_x $NHC_CORES", expand("check_x $NHC_CORES", Set.of("NHC_CORES")), "a variable the config assigns is bash's");
        assertEquals("check_x $NHC_UNKNOWN", expand("check_x $NHC_UNKNOWN", Set.of()), "a plain unset variable stays dynamic");
    }

    @Test
    void operatorFormsAndArithmeticUseTheFileOrTheDefault() {
        assertEquals("check_ps_loadavg 64", expand("check_ps_loadavg $((${NHC_LOADAVG_MULTIPLIER:-2}*$NHC_CORES))", Set.of()));
        assertEquals("check_ps_loadavg 35", expand("check_ps_loadavg $((NHC_CORES + 3*1))", Set.of()));
        assertEquals("check_ps_loadavg $((4*$HW_CORES))", expand("check_ps_loadavg $((4*$HW_CORES))", Set.of()),
                "LBNL NHC sets HW_CORES while it runs: not unset here");
        assertEquals("check_x $((NHC_CORES/2))", expand("check_x $((NHC_CORES/2))", Set.of()), "division is left to bash");
    }

    @Test
    void aConditionalOnWhetherTheFileSetsAVariableRunsItsCheckOrNothing() {
        assertEquals("check_hw_eth eth0", expand("if [ ! -z ${NHC_ETH0+x} ]; then check_hw_eth $NHC_ETH0; fi", Set.of()));
        assertEquals("", expand("if [ ! -z ${NHC_IB_DEV+x} ]; then check_hw_eth $NHC_IB_DEV; fi", Set.of()));
        assertEquals("", expand("if [ ! -z \"${NHC_PTPD_STATUS+x}\" ]; then check_ptpd_drift; fi", Set.of()));
        assertEquals("check_chrony_drift", expand("if [ -n \"${NHC_CORES+x}\" ]; then check_chrony_drift; fi", Set.of()));
        assertEquals("check_y", ShellExpansion.conditional("if [ -n ]; then check_y; fi"), "bash's [ -n ] tests the word -n: true");
        assertEquals("if [ -f /x ]; then check_y; fi", ShellExpansion.conditional("if [ -f /x ]; then check_y; fi"), "other tests are bash's");
    }
}
