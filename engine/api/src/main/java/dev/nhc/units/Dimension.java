package dev.nhc.units;

/** What kind of thing a number measures; thresholds convert only within one dimension. */
public enum Dimension {
    COUNT, PERCENT, BYTES, DURATION, TEMPERATURE, POWER, RATE, BOOLEAN, TEXT
}
