package dev.nhc.engine.state;

import dev.nhc.probe.ProbeState;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One named part of the persistent state (a check's counters, the Slurm ownership record), kept in
 * its own JSON file. Values must be plain JSON data: String, Long, Double, Boolean, List, Map
 * (numbers read back as Long or Double). A changed section is written when it is flushed: a
 * check's own section right after its probe returns, from the probe's thread, the others when the
 * store is flushed at the end of a run.
 */
public final class StateSection implements ProbeState {
    /**
     * Set when the section's files could not be read (the reason, a sentence), saved with it, and
     * removed with everything else by {@code nhc clear}: until then a check that latches faults
     * reports that it may have forgotten one.
     */
    public static final String LOST_KEY = "state_lost";

    private final String name;
    private final Map<String, Object> data;
    private final Supplier<String> held;
    private boolean dirty;
    /** Unreadable files of this section, moved aside when it is next written. */
    private List<Path> damaged = List.of();
    /** The highest generation of this section known to have been written: the next write is one past it. */
    private long generation;

    StateSection(String name, Map<String, Object> data, long generation, Supplier<String> held) {
        this.name = name;
        this.data = new LinkedHashMap<>(data);
        this.generation = generation;
        this.held = held;
    }

    /** A section that is never saved, for replays and tests that must not touch the state directory. */
    public static StateSection detached(String name) {
        return new StateSection(name, Map.of(), -1, () -> null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized Object get(String key) {
        return data.get(key);
    }

    @Override
    public synchronized long getLong(String key, long fallback) {
        Object v = data.get(key);
        return v instanceof Number n ? n.longValue() : fallback;
    }

    @Override
    public synchronized String getString(String key) {
        Object v = data.get(key);
        return v == null ? null : v.toString();
    }

    @Override
    public synchronized void put(String key, Object value) {
        Object old = value == null ? data.remove(key) : data.put(key, value);
        if (!java.util.Objects.equals(old, value)) {
            dirty = true;
        }
    }

    @Override
    public synchronized void remove(String key) {
        if (data.remove(key) != null) {
            dirty = true;
        }
    }

    @Override
    public synchronized void clear() {
        if (!data.isEmpty()) {
            data.clear();
            dirty = true;
        }
    }

    @Override
    public synchronized String lostBecause() {
        Object v = data.get(LOST_KEY);
        return v == null ? null : v.toString();
    }

    @Override
    public String heldBecause() {
        return held.get();
    }

    @Override
    public synchronized Map<String, Object> snapshot() {
        return new LinkedHashMap<>(data);
    }

    synchronized boolean dirty() {
        return dirty;
    }

    synchronized void clean() {
        dirty = false;
    }

    synchronized void markDirty() {
        dirty = true;
    }

    /** The number the next write gives its file. */
    synchronized long nextGeneration() {
        return generation + 1;
    }

    /** A write of generation {@code n} is in place. */
    synchronized void written(long n) {
        generation = Math.max(generation, n);
    }

    synchronized List<Path> damaged() {
        return damaged;
    }

    synchronized void damaged(List<Path> files) {
        this.damaged = List.copyOf(files);
        if (!files.isEmpty()) {
            dirty = true; // written again soon, from the generation that could be read
        }
    }
}
