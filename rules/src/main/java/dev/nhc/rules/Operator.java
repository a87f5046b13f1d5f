package dev.nhc.rules;

import java.util.List;

/** The comparison a condition makes. Symbols are matched longest first so that {@code >=} is not read as {@code >}. */
enum Operator {
    GE(">="), LE("<="), EQ("=="), NE("!="), NOT_MATCH("!~"), GT(">"), LT("<"), MATCH("~");

    static final List<String> SYMBOLS = List.of(">", ">=", "<", "<=", "==", "!=", "~", "!~");

    final String symbol;

    Operator(String symbol) {
        this.symbol = symbol;
    }

    static Operator bySymbol(String s) {
        for (Operator o : values()) {
            if (o.symbol.equals(s)) {
                return o;
            }
        }
        return null;
    }

    boolean isOrdering() {
        return this == GT || this == GE || this == LT || this == LE;
    }

    boolean isPattern() {
        return this == MATCH || this == NOT_MATCH;
    }

    boolean compare(int cmp) {
        return switch (this) {
            case GT -> cmp > 0;
            case GE -> cmp >= 0;
            case LT -> cmp < 0;
            case LE -> cmp <= 0;
            case EQ -> cmp == 0;
            case NE -> cmp != 0;
            default -> throw new IllegalStateException(symbol + " is not a comparison");
        };
    }
}
