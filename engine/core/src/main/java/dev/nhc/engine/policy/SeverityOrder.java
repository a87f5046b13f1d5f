package dev.nhc.engine.policy;

import dev.nhc.model.Severity;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Which severity is worse, held as data (Spring Boot's {@code SimpleStatusAggregator}): one list,
 * worst first, and every comparison, aggregation and sort of severities goes through it. The
 * standard order is the contract of docs/DESIGN.md: fail, warn, unknown, pass — UNKNOWN ranks
 * below WARN, so "no opinion" never outranks a degradation.
 */
public final class SeverityOrder {
    public static final SeverityOrder STANDARD = new SeverityOrder(List.of(Severity.FAIL, Severity.WARN, Severity.UNKNOWN, Severity.PASS));

    private final List<Severity> worstFirst;
    private final Map<Severity, Integer> rank = new EnumMap<>(Severity.class);

    /** @param worstFirst every severity once, the worst first */
    public SeverityOrder(List<Severity> worstFirst) {
        if (worstFirst.size() != Severity.values().length || worstFirst.stream().distinct().count() != worstFirst.size()) {
            throw new IllegalArgumentException("an order names every severity once: " + worstFirst);
        }
        this.worstFirst = List.copyOf(worstFirst);
        for (int i = 0; i < worstFirst.size(); i++) {
            rank.put(worstFirst.get(i), worstFirst.size() - 1 - i);
        }
    }

    /** 0 for the best (pass) up to the worst (fail: 3): what the metrics show, so that {@code max} is the aggregate. */
    public int rank(Severity s) {
        return rank.get(s);
    }

    public boolean isWorse(Severity a, Severity than) {
        return rank(a) > rank(than);
    }

    public Severity worst(Severity a, Severity b) {
        return rank(a) >= rank(b) ? a : b;
    }

    /** The worst of these; the best (pass) when there are none. */
    public Severity worstOf(Iterable<Severity> severities) {
        Severity w = best();
        for (Severity s : severities) {
            w = worst(w, s);
        }
        return w;
    }

    public Severity best() {
        return worstFirst.get(worstFirst.size() - 1);
    }

    /** Sorts worst first. */
    public Comparator<Severity> worstFirst() {
        return Comparator.comparingInt(this::rank).reversed();
    }

    /** Every severity, worst first. */
    public List<Severity> severities() {
        return worstFirst;
    }
}
