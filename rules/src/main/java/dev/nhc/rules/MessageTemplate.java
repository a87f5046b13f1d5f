package dev.nhc.rules;

import dev.nhc.engine.config.Location;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.config.Suggest;
import dev.nhc.model.Observation;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A finding's message with placeholders: {@code {field}} becomes the observed value with its unit
 * ({@code 97.2%}, {@code 3.1 GiB}), {@code {entity}} the entity, {@code {check}} the check's name,
 * {@code {value}} the value of the first field of the condition that fired, {@code {with.name}}
 * the check's parameter. {@code {field|one|many}} prints the word that agrees with a number
 * ({@code {errors} {errors|error|errors}}: "1 error", "2 errors"). Split into pieces once, at load
 * time (parameters are filled in then). Braces that do not enclose a name are left as they are.
 */
final class MessageTemplate {
    static final List<String> BUILT_IN = List.of("entity", "check", "value");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_.-]*)(?:\\|([^{}|]*)\\|([^{}|]*))?}");

    private sealed interface Piece {
    }

    private record Text(String text) implements Piece {
    }

    private record Field(FieldSpec field) implements Piece {
    }

    private record BuiltIn(String name) implements Piece {
    }

    /** The word that agrees with a field's number: {@code one} for 1, {@code many} for anything else (and for no value). */
    private record Plural(FieldSpec field, String one, String many) implements Piece {
    }

    private final String source;
    private final List<Piece> pieces;

    private MessageTemplate(String source, List<Piece> pieces) {
        this.source = source;
        this.pieces = List.copyOf(pieces);
    }

    /** The template, or null after adding a problem for every unknown placeholder. */
    static MessageTemplate parse(String source, ProbeSpec spec, Params params, Location at, String where, Problems problems) {
        List<Piece> pieces = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(source);
        int last = 0;
        boolean ok = true;
        while (m.find()) {
            if (m.start() > last) {
                pieces.add(new Text(source.substring(last, m.start())));
            }
            String name = m.group(1);
            boolean plural = m.group(2) != null;
            FieldSpec field = spec.field(name).orElse(null);
            if (name.startsWith("with.") && spec.param(name.substring(5)).isPresent()) {
                Object v = params.raw(name.substring(5));
                if (plural) {
                    pieces.add(new Text(isOne(v) ? m.group(2) : m.group(3)));
                } else {
                    pieces.add(new Text(v == null ? "(not set)" : ParamText.render(v)));
                }
            } else if (field != null) {
                pieces.add(plural ? new Plural(field, m.group(2), m.group(3)) : new Field(field));
            } else if (plural && BUILT_IN.contains(name)) {
                problems.add(at, where + ": '{" + name + "|" + m.group(2) + "|" + m.group(3) + "}' chooses a word by a number: "
                        + "name an observed field or a with.parameter");
                ok = false;
            } else if (BUILT_IN.contains(name)) {
                pieces.add(new BuiltIn(name));
            } else {
                List<String> known = new ArrayList<>(BUILT_IN);
                spec.fields().forEach(f -> known.add(f.name()));
                spec.params().forEach(p -> known.add("with." + p.name()));
                problems.add(at, where + ": unknown placeholder '{" + name + "}'" + Suggest.didYouMean(name, known)
                        + " (known: " + String.join(", ", known) + ")");
                ok = false;
            }
            last = m.end();
        }
        if (last < source.length()) {
            pieces.add(new Text(source.substring(last)));
        }
        return ok ? new MessageTemplate(source, pieces) : null;
    }

    /** Adds the names of the fields this template prints. */
    void addFieldNames(java.util.Collection<String> names) {
        for (Piece p : pieces) {
            if (p instanceof Field f) {
                names.add(f.field().name());
            } else if (p instanceof Plural w) {
                names.add(w.field().name());
            }
        }
    }

    String render(Observation observation, String check, Clause fired) {
        StringBuilder out = new StringBuilder(source.length() + 32);
        for (Piece p : pieces) {
            if (p instanceof Text t) {
                out.append(t.text());
            } else if (p instanceof Field f) {
                out.append(format(f.field(), observation.get(f.field().name())));
            } else if (p instanceof Plural w) {
                out.append(isOne(observation.get(w.field().name())) ? w.one() : w.many());
            } else if (p instanceof BuiltIn b) {
                switch (b.name()) {
                    case "entity" -> out.append(observation.entity().label());
                    case "check" -> out.append(check);
                    default -> {
                        FieldSpec first = fired.conditions().get(0).field();
                        out.append(format(first, observation.get(first.name())));
                    }
                }
            }
        }
        return out.toString();
    }

    private static boolean isOne(Object value) {
        return value instanceof Number n && n.doubleValue() == 1.0;
    }

    private static String format(FieldSpec field, Object value) {
        return value == null ? "n/a" : field.unit().format(value);
    }

    @Override
    public String toString() {
        return source;
    }
}
