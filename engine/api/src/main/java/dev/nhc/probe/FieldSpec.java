package dev.nhc.probe;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.units.Unit;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One field a probe observes per entity; rules may only name declared fields, with thresholds in a
 * compatible unit.
 *
 * <p>A declared field is reported for every entity the probe saw, so a rule over it that finds it
 * absent cannot decide ({@code unknown}, naming the field and the entity) instead of passing.
 * Where a probe's entities play different roles, the spec says which must have it: {@code kinds}
 * (empty: every kind), and {@code with}, a field whose presence marks the role (a port count on the
 * node, a pattern's matches beside its {@code severity}; null: every observation). {@code optional}
 * declares the exceptions: a field whose absence is normal ("not supported on this GPU", "no inode
 * table on btrfs", "only with the {@code owner} parameter").
 */
public record FieldSpec(String name, Unit unit, String description, boolean optional, Set<Entity.Kind> kinds, String with) {

    public FieldSpec {
        kinds = kinds.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    }

    /** A field reported for every entity the probe sees. */
    public FieldSpec(String name, Unit unit, String description) {
        this(name, unit, description, false, Set.of(), null);
    }

    /** Whether an observation the probe made of an entity it saw must have this field. */
    public boolean requiredIn(Observation o) {
        return !optional && (kinds.isEmpty() || kinds.contains(o.entity().kind())) && (with == null || o.get(with) != null);
    }

    FieldSpec asOptional() {
        return new FieldSpec(name, unit, description, true, kinds, with);
    }

    FieldSpec alsoFor(Entity.Kind kind) {
        Set<Entity.Kind> k = kinds.isEmpty() ? EnumSet.noneOf(Entity.Kind.class) : EnumSet.copyOf(kinds);
        k.add(kind);
        return new FieldSpec(name, unit, description, optional, k, with);
    }

    FieldSpec reportedWith(String field) {
        return new FieldSpec(name, unit, description, optional, kinds, field);
    }
}
