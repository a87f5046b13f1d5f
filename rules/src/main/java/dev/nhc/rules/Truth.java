package dev.nhc.rules;

/**
 * The outcome of a condition over one observation. UNDECIDED means an optional field was not
 * reported (absent = not available on this hardware), which must neither fire nor clear a rule.
 * MISSING means a field the probe declares for this entity was not reported, or not as a value of
 * its unit: the rule cannot be judged, and the entity is {@code unknown} unless another rule fires.
 */
enum Truth {
    YES, NO, UNDECIDED, MISSING;

    static Truth of(boolean b) {
        return b ? YES : NO;
    }
}
