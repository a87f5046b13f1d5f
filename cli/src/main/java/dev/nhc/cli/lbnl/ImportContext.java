package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What earlier lines of the config decide for later ones: LBNL's TIMEOUT (check_cmd_* refuse a
 * longer command timeout, carried-over lines get it as their limit), the df flags its filesystem
 * checks read with, variables the config sets for the checks after it, and families of checks
 * whose data source a variable changed (those are carried over, not translated).
 */
public final class ImportContext {
    /** LBNL NHC 1.4.3's default watchdog, in seconds. */
    static final int LBNL_DEFAULT_TIMEOUT = 30;

    int lbnlTimeout = LBNL_DEFAULT_TIMEOUT;
    /** lbnl_fs.nhc's defaults: DF_FLAGS="-Tka", DFI_FLAGS="-Tia". */
    DfFlags df = DfFlags.parse("-Tka");
    DfFlags dfi = DfFlags.parse("-Tia");
    /** The tools LBNL's GPU functions run, as earlier lines set them (NVIDIA_HEALTHMON, NVIDIA_SMI_HEALTHMON and their _ARGS). */
    final Map<String, String> tools = new LinkedHashMap<>();
    final List<String> exports = new ArrayList<>();
    /** The cores an earlier check_hw_cpuinfo for every host requires, which LBNL NHC's $HW_CORES then is; null when not known. */
    Integer hwCores;
    int hwCoresLine;
    boolean coresSeen;
    final Set<String> assigned = new HashSet<>();
    private final Map<String, Set<String>> taint = new LinkedHashMap<>();

    boolean tainted(String family) {
        return taint.containsKey(family);
    }

    /** The variables set earlier in the config that change what this family's functions read. */
    Set<String> taintedVariables(String family) {
        return taint.getOrDefault(family, Set.of());
    }

    void taint(String family, String variable) {
        taint.computeIfAbsent(family, f -> new LinkedHashSet<>()).add(variable);
    }
}
