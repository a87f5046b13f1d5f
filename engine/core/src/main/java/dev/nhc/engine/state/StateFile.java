package dev.nhc.engine.state;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A state section on disk: one JSON object of plain values (maps, lists, strings, whole numbers
 * as Long, other numbers as Double, booleans, null), pretty-printed so that an admin can read it
 * and jq can query it. Jackson's streaming parser and generator, not YAML: every GPU check reads
 * and writes its counters on every run, and SnakeYAML costs a cold JVM ten times as much.
 */
final class StateFile {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private StateFile() {
    }

    /** The object in {@code text}; an exception's message says where ({@code line:column}) and what is wrong. */
    static Map<String, Object> parse(String text) throws IOException {
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException(at(p.currentTokenLocation()) + "not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) value(p);
            if (p.nextToken() != null) {
                throw new IOException(at(p.currentTokenLocation()) + "text after the object");
            }
            return data;
        } catch (JsonProcessingException e) {
            throw new IOException(at(e.getLocation()) + e.getOriginalMessage(), e);
        }
    }

    static String render(Map<String, Object> data) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out).useDefaultPrettyPrinter()) {
            write(g, data);
        }
        return out.append('\n').toString();
    }

    private static Object value(JsonParser p) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    p.nextToken();
                    m.put(key, value(p));
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(value(p));
                }
                return l;
            }
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw new IOException(at(p.currentTokenLocation()) + "number too large: " + p.getText());
                }
                return p.getLongValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> {
                return p.getText();
            }
        }
    }

    private static void write(JsonGenerator g, Object o) throws IOException {
        if (o instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (o instanceof List<?> l) {
            g.writeStartArray();
            for (Object item : l) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (o == null) {
            g.writeNull();
        } else if (o instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) {
            g.writeNumber(((Number) o).longValue());
        } else if (o instanceof BigInteger || o instanceof BigDecimal) {
            g.writeNumber(o.toString());
        } else if (o instanceof Number n) {
            g.writeNumber(n.doubleValue());
        } else {
            g.writeString(o.toString());
        }
    }

    private static String at(JsonLocation where) {
        return where == null || where.getLineNr() < 1 ? "" : where.getLineNr() + ":" + where.getColumnNr() + ": ";
    }
}
