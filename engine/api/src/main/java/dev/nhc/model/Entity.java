package dev.nhc.model;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * What an observation or a finding is about: the node, GPU 3 (with its PCI bus id), the mount
 * /scratch, InfiniBand port mlx5_0/1. Typed, so that whoever maps a finding to the outside world
 * (dstack's incident for a GPU, a metric's gpu label) reads the GPU index from here and never
 * parses it back out of a message or a label.
 *
 * <p>{@code id} identifies the entity within its kind (the GPU index, the mount point, "mlx5_0/1");
 * {@code label} is how reports and messages name it ("GPU 3", "/scratch", "port mlx5_0/1");
 * {@code pciBusId} is set for PCI devices (GPUs, NVSwitches, NICs) when known, else null.
 */
public record Entity(Kind kind, String id, String label, String pciBusId) {

    /** The kinds of thing nhc judges. A site probe whose entities fit none uses {@link #OTHER}. */
    public enum Kind {
        NODE, GPU, NVSWITCH, MOUNT, PATH, PROCESS, SERVICE, MODULE, PORT, LOG, DEVICE, OTHER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The whole node. */
    public static final Entity NODE = new Entity(Kind.NODE, "node", "node", null);

    public Entity {
        if (kind == null || id == null || label == null) {
            throw new IllegalArgumentException("an entity needs a kind, an id and a label");
        }
    }

    /** GPU {@code index} as NVML numbers it; {@code pciBusId} may be null when unknown. */
    public static Entity gpu(int index, String pciBusId) {
        return new Entity(Kind.GPU, Integer.toString(index), "GPU " + index, pciBusId);
    }

    /** A GPU known only by its PCI address (a kernel log line on a host whose GPUs NVML cannot list). */
    public static Entity gpuAtPci(String pciBusId) {
        return new Entity(Kind.GPU, pciBusId, "GPU at PCI " + pciBusId, pciBusId);
    }

    /** An entity whose label is its id: a mount point, a path, a unit name. */
    public static Entity of(Kind kind, String id) {
        return new Entity(kind, id, id, null);
    }

    public static Entity of(Kind kind, String id, String label) {
        return new Entity(kind, id, label, null);
    }

    /** The GPU index, for GPU entities that have one. */
    public OptionalInt gpuIndex() {
        if (kind != Kind.GPU) {
            return OptionalInt.empty();
        }
        for (int i = 0; i < id.length(); i++) {
            if (!Character.isDigit(id.charAt(i))) {
                return OptionalInt.empty();
            }
        }
        return id.isEmpty() || id.length() > 6 ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(id));
    }

    public boolean isNode() {
        return kind == Kind.NODE;
    }

    @Override
    public String toString() {
        return label;
    }
}
