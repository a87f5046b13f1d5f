package dev.nhc.rules;

/**
 * The outcome of a condition over one observation. UNDECIDED means the field was not reported
 * (absent = not available on this hardware), which must neither fire nor clear a rule.
 */
enum Truth {
    YES, NO, UNDECIDED;

    static Truth of(boolean b) {
        return b ? YES : NO;
    }
}
