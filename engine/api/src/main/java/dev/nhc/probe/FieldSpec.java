package dev.nhc.probe;

import dev.nhc.units.Unit;

/** One field a probe observes per entity; rules may only name declared fields, with thresholds in a compatible unit. */
public record FieldSpec(String name, Unit unit, String description) {
}
