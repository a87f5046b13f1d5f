package dev.nhc.rules;

import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.List;
import java.util.Map;

/**
 * A probe with one field of every unit and a few default rules (used_percent is always reported,
 * inode_percent for mounts, hits beside a pattern, the rest may be absent), so rules can be tested without a real
 * system.
 */
final class DiskLikeProbe implements Probe {
    static final String NAME = "test.disk";

    static final ProbeSpec SPEC = ProbeSpec.builder(NAME, "a disk-like probe for rule tests")
            .entities(dev.nhc.model.Entity.Kind.MOUNT, "one per mount")
            .field("used_percent", Unit.PERCENT, "space used")
            .field("free_bytes", Unit.BYTES, "space free")
            .field("temp", Unit.CELSIUS, "temperature")
            .field("errors", Unit.PER_MINUTE, "I/O errors per minute")
            .field("age", Unit.SECONDS, "time since last write")
            .field("power", Unit.WATTS, "power draw")
            .field("count", Unit.COUNT, "a plain count")
            .field("active", Unit.BOOLEAN, "mounted")
            .field("state", Unit.TEXT, "state name")
            .field("inode_percent", Unit.PERCENT, "inodes used, reported for mounts only")
            .field("pattern", Unit.TEXT, "a pattern, reported for the entities that are one")
            .field("hits", Unit.COUNT, "the pattern's hits, reported beside it")
            // What a GPU or an odd filesystem may not have; used_percent is always reported.
            .optional("free_bytes", "temp", "errors", "age", "power", "count", "active", "state", "pattern")
            .reportedWith("pattern", "hits")
            .reportedFor(dev.nhc.model.Entity.Kind.MOUNT, "inode_percent")
            .rule(DefaultRule.fail(Map.of("used_percent", "> 95"), "{entity} is {used_percent} full"))
            .rule(DefaultRule.fail(List.of(Map.of("errors", "> 10/min"), Map.of("active", false)), null)
                    .remedy(Remedy.HARDWARE).slurmState(SlurmState.FAIL).latches())
            .rule(DefaultRule.warn(Map.of("used_percent", "> 85"), null))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        throw new UnsupportedOperationException("rule tests give observations directly");
    }
}
