package dev.nhc.rules;

import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;

import java.util.List;

/**
 * A compiled {@code warn:}/{@code fail:} value or probe default rule: any of its clauses firing
 * gives {@code severity}. {@code template}, {@code remedy}, {@code slurmState} and
 * {@code remedyField} are the rule's own (a probe default's); null when it has none and the
 * check's or automatic ones apply. {@code latched}: a probe default's mark that its findings are
 * faults latched until reboot (never a config's own rule).
 */
record Rule(Severity severity, List<Clause> clauses, MessageTemplate template, Remedy remedy, SlurmState slurmState,
            String remedyField, boolean latched) {

    Rule {
        clauses = List.copyOf(clauses);
    }
}
