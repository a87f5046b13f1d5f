package dev.nhc.checks.host;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A default rule's condition over several fields (all must hold), in the order written: Map.of
 * would order them differently on every JVM, and {@code nhc list} prints them. The one helper
 * for this in the checks.
 */
public final class AllOf {
    private AllOf() {
    }

    /** {@code of("threads", "< {with.threads}", "smt_control", "~ off")}. */
    public static Map<String, Object> of(Object... fieldsAndConditions) {
        if (fieldsAndConditions.length % 2 != 0) {
            throw new IllegalArgumentException("field and condition pairs expected");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndConditions.length; i += 2) {
            out.put((String) fieldsAndConditions[i], fieldsAndConditions[i + 1]);
        }
        return Collections.unmodifiableMap(out);
    }
}
