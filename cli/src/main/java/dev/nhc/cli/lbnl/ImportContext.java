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
 * longer command timeout), variables the config sets for the checks after it, and families of
 * checks whose data source a variable changed (those are carried over, not translated).
 */
public final class ImportContext {
    /** LBNL NHC 1.4.3's default watchdog, in seconds. */
    static final int LBNL_DEFAULT_TIMEOUT = 30;

    private final boolean ibPortsProbe;
    int lbnlTimeout = LBNL_DEFAULT_TIMEOUT;
    final List<String> exports = new ArrayList<>();
    final Set<String> assigned = new HashSet<>();
    private final Map<String, Set<String>> taint = new LinkedHashMap<>();

    public ImportContext(boolean ibPortsProbe) {
        this.ibPortsProbe = ibPortsProbe;
    }

    boolean ibPortsProbe() {
        return ibPortsProbe;
    }

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
