package dev.nhc.dstack;

import java.util.Map;

/** What the real shim said to {@code GET /api/instance/health}: a parsed object, nothing (down), or something unusable. */
public sealed interface ShimHealth {

    /** The shim answered with a JSON object (its {@code dcgm} member may still be invalid; the merge checks it). */
    record Answer(Map<String, Object> body) implements ShimHealth {
    }

    /** Nothing listens at the shim's address: health comes from nhc alone. */
    record Down(String why) implements ShimHealth {
    }

    /** The shim answered, but not with a usable health object (bad status, not JSON, too large, reset, too slow). */
    record Malformed(String why) implements ShimHealth {
    }
}
