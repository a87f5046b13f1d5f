package dev.nhc.checks.dcgm;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last diag's observations, kept in the check's state so that the runs in between (while jobs
 * hold the GPUs) report them. Read back with every value checked: a damaged entry is not guessed
 * at. nhc 0.1 kept findings ({@code last_findings}) instead; those are read as observations once.
 */
final class LastDiag {
    static final String LAST_RUN = "last_run_ms";
    static final String LAST_LEVEL = "last_level";
    static final String LAST_RESULTS = "last_results";
    static final String LEGACY_FINDINGS = "last_findings";

    static final int TEXT_MAX = 4000;
    private static final Set<String> COUNTS = Set.of("tests", "tests_run", "tests_failed", "failed", "warned", "config_failed", "level");
    private static final Set<String> TEXTS = Set.of("results", "skip_reasons", "runtime_error");
    private static final Pattern LEGACY_GPU = Pattern.compile("gpu(\\d{1,6})");
    private static final Pattern LEGACY_PREFIX = Pattern.compile("^DCGM diag level \\d+: ");

    /** What was kept: when, at which level, and what was observed; {@code problem} non-null when it could not be read back. */
    record Kept(Instant at, long level, List<Observation> observations, String problem) {
    }

    private LastDiag() {
    }

    static void save(ProbeState state, Instant at, long level, List<Observation> observations) {
        List<Object> out = new ArrayList<>();
        for (Observation o : observations) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("entity_kind", o.entity().kind().label());
            m.put("entity_id", o.entity().id());
            m.put("entity", o.entity().label());
            o.fields().forEach((k, v) -> {
                if (!k.equals("age")) {
                    // kept no longer than load accepts: a long DCGM message must not make the kept failure "damaged"
                    m.put(k, TEXTS.contains(k) && v instanceof String t ? cut(t) : v);
                }
            });
            out.add(m);
        }
        state.put(LAST_RUN, at.toEpochMilli());
        state.put(LAST_LEVEL, level);
        state.put(LAST_RESULTS, out);
        state.remove(LEGACY_FINDINGS);
    }

    /** At most {@link #TEXT_MAX} characters, a cut one ending in "…". */
    static String cut(String s) {
        if (s.length() <= TEXT_MAX) {
            return s;
        }
        int end = TEXT_MAX - 1;
        if (Character.isLowSurrogate(s.charAt(end))) {
            end--;  // never split a character in two
        }
        return s.substring(0, end) + "…";
    }

    /** The kept diag, or null when none ran (or its time is unusable, so it cannot be told apart from none). */
    static Kept load(ProbeState state) {
        Object run = state.get(LAST_RUN);
        if (!(run instanceof Number n) || n.longValue() < 0) {
            return null;
        }
        Instant at = Instant.ofEpochMilli(n.longValue());
        long level = state.get(LAST_LEVEL) instanceof Number l && l.longValue() >= 1 && l.longValue() <= 4 ? l.longValue() : 1;
        Object saved = state.get(LAST_RESULTS);
        if (saved == null && state.get(LEGACY_FINDINGS) instanceof List<?> legacy) {
            return legacy(at, level, legacy);
        }
        if (!(saved instanceof List<?> list)) {
            return new Kept(at, level, List.of(), "state value " + LAST_RESULTS + " is " + (saved == null ? "missing" : "not a list"));
        }
        List<Observation> out = new ArrayList<>();
        for (Object o : list) {
            Observation obs = o instanceof Map<?, ?> m ? read(m) : null;
            if (obs == null) {
                return new Kept(at, level, List.of(), "a saved entry of " + LAST_RESULTS + " is damaged");
            }
            out.add(obs);
        }
        return new Kept(at, level, out, null);
    }

    private static Observation read(Map<?, ?> m) {
        Entity entity = entity(m.get("entity_kind"), m.get("entity_id"), m.get("entity"));
        if (entity == null) {
            return null;
        }
        Observation.Builder b = Observation.of(entity);
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            Object v = e.getValue();
            if (key.startsWith("entity")) {
                continue;
            }
            if (COUNTS.contains(key) && v instanceof Number num && num.longValue() >= 0) {
                b.put(key, num.longValue());
            } else if (TEXTS.contains(key) && v instanceof String s && s.length() <= TEXT_MAX) {
                b.put(key, s);
            } else {
                return null;
            }
        }
        return b.build();
    }

    private static Entity entity(Object kind, Object id, Object label) {
        if (!(kind instanceof String k) || !(id instanceof String i) || !(label instanceof String l) || i.length() > 64 || l.length() > 128) {
            return null;
        }
        for (Entity.Kind x : Entity.Kind.values()) {
            if (x.label().equals(k)) {
                return x == Entity.Kind.NODE ? Entity.NODE : new Entity(x, i, l, null);
            }
        }
        return null;
    }

    /** nhc 0.1's findings: one per failed or warned test, entity "gpu3" or "node", DCGM's message. */
    private static Kept legacy(Instant at, long level, List<?> findings) {
        Map<Entity, Map<String, Object>> byEntity = new LinkedHashMap<>();
        for (Object o : findings) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("entity") instanceof String label) || !(m.get("message") instanceof String msg)
                    || !(m.get("severity") instanceof String sev) || msg.length() > TEXT_MAX) {
                return new Kept(at, level, List.of(), "a saved finding of " + LEGACY_FINDINGS + " is damaged");
            }
            Matcher g = LEGACY_GPU.matcher(label);
            Entity entity = label.equals("node") ? Entity.NODE : g.matches() ? Entity.gpu(Integer.parseInt(g.group(1)), null) : null;
            if (entity == null || !(sev.equals("fail") || sev.equals("warn"))) {
                return new Kept(at, level, List.of(), "a saved finding of " + LEGACY_FINDINGS + " is damaged");
            }
            Map<String, Object> fields = byEntity.computeIfAbsent(entity, k -> new LinkedHashMap<>(Map.of("failed", 0L, "warned", 0L)));
            fields.merge(sev.equals("fail") ? "failed" : "warned", 1L, (a, b) -> (Long) a + (Long) b);
            String text = LEGACY_PREFIX.matcher(msg).replaceFirst("");
            fields.merge("results", text, (a, b) -> a + "; " + b);
        }
        List<Observation> out = new ArrayList<>();
        byEntity.forEach((entity, fields) -> {
            Observation.Builder b = Observation.of(entity).put("level", level).put("config_failed", 0L);
            fields.forEach(b::put);
            out.add(b.build());
        });
        return new Kept(at, level, out, null);
    }
}
