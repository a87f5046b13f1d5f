package dev.nhc.units;

/**
 * The unit a probe field is reported in. A threshold written with a unit is converted to the
 * field's own unit before comparing; a threshold without one is taken to be in the field's unit.
 */
public enum Unit {
    COUNT(Dimension.COUNT, 1, ""),
    PERCENT(Dimension.PERCENT, 1, "%"),
    BYTES(Dimension.BYTES, 1, "B"),
    SECONDS(Dimension.DURATION, 1, "s"),
    CELSIUS(Dimension.TEMPERATURE, 1, "C"),
    WATTS(Dimension.POWER, 1, "W"),
    PER_SECOND(Dimension.RATE, 1, "/s"),
    PER_MINUTE(Dimension.RATE, 1.0 / 60, "/min"),
    PER_HOUR(Dimension.RATE, 1.0 / 3600, "/h"),
    BOOLEAN(Dimension.BOOLEAN, 1, ""),
    TEXT(Dimension.TEXT, 1, "");

    private final Dimension dimension;
    private final double toBase;
    private final String symbol;

    Unit(Dimension dimension, double toBase, String symbol) {
        this.dimension = dimension;
        this.toBase = toBase;
        this.symbol = symbol;
    }

    public Dimension dimension() {
        return dimension;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isNumeric() {
        return dimension != Dimension.BOOLEAN && dimension != Dimension.TEXT;
    }

    /** Converts a value expressed in the dimension's base unit (bytes, seconds, per second…) into this unit. */
    public double fromBase(double base) {
        return base / toBase;
    }

    public double toBase(double value) {
        return value * toBase;
    }

    /** Formats a value of this unit for messages: bytes as GiB/MiB, others with their symbol. */
    public String format(Object value) {
        if (!(value instanceof Number n)) {
            return String.valueOf(value);
        }
        if (this == BYTES) {
            return Quantity.formatBytes(n.doubleValue());
        }
        return Quantity.formatNumber(n.doubleValue()) + symbol;
    }
}
