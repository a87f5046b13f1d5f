package dev.nhc.probe;

import dev.nhc.model.Entity;
import dev.nhc.units.Unit;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One field a probe observes per entity; rules may only name declared fields, with thresholds in a
 * compatible unit.
 *
 * <p>A declared field is reported for every entity the probe saw of the kinds in {@code kinds}
 * (empty: of every kind), so a rule over it that finds it absent cannot decide ({@code unknown},
 * naming the field and the entity) instead of passing. {@code optional} declares the exceptions:
 * a field whose absence is normal ("not supported on this GPU", "no inode table on btrfs").
 */
public record FieldSpec(String name, Unit unit, String description, boolean optional, Set<Entity.Kind> kinds) {

    public FieldSpec {
        kinds = kinds.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    }

    /** A field reported for every entity the probe sees. */
    public FieldSpec(String name, Unit unit, String description) {
        this(name, unit, description, false, Set.of());
    }

    /** Whether the probe reports this field for entities of this kind. */
    public boolean appliesTo(Entity.Kind kind) {
        return kinds.isEmpty() || kinds.contains(kind);
    }

    /** Whether an entity of this kind that the probe saw must have this field. */
    public boolean requiredFor(Entity.Kind kind) {
        return !optional && appliesTo(kind);
    }

    FieldSpec asOptional() {
        return new FieldSpec(name, unit, description, true, kinds);
    }

    FieldSpec alsoFor(Entity.Kind kind) {
        Set<Entity.Kind> k = kinds.isEmpty() ? EnumSet.noneOf(Entity.Kind.class) : EnumSet.copyOf(kinds);
        k.add(kind);
        return new FieldSpec(name, unit, description, optional, k);
    }
}
