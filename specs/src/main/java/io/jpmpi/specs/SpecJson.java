package io.jpmpi.specs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Map;

/**
 * Reading and writing the spec. The written form is canonical: keys in a fixed order, maps
 * sorted, two-space indentation, and every object or array that fits in {@link #WIDTH} columns
 * on one line, so that the same model always gives the same bytes and diffs stay readable.
 */
public final class SpecJson {
    /** Lines are kept within this many columns where a value allows it. */
    public static final int WIDTH = 160;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .build();

    private SpecJson() {
    }

    /** The mapper configured for the spec's naming (snake_case) and strictness. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** A lenient reader for hand-written JSON with comments and trailing commas (overrides). */
    public static ObjectMapper commentedMapper() {
        return JsonMapper.builder()
                .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
                .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    public static MpiSpec read(InputStream in) throws IOException {
        return MAPPER.readValue(in, MpiSpec.class);
    }

    /** The canonical text of {@code spec}, ending in a newline. */
    public static String write(MpiSpec spec) {
        JsonNode tree = MAPPER.valueToTree(spec);
        StringBuilder sb = new StringBuilder(1 << 20);
        writeNode(sb, tree, 0, 0);
        sb.append('\n');
        return sb.toString();
    }

    private static void writeNode(StringBuilder sb, JsonNode node, int depth, int column) {
        String flat = flat(node);
        if (!node.isContainerNode() || node.isEmpty() || column + flat.length() <= WIDTH) {
            sb.append(flat);
            return;
        }
        String pad = "  ".repeat(depth + 1);
        String close = "  ".repeat(depth);
        if (node.isArray()) {
            sb.append("[\n");
            for (int i = 0; i < node.size(); i++) {
                sb.append(pad);
                writeNode(sb, node.get(i), depth + 1, pad.length());
                sb.append(i + 1 < node.size() ? ",\n" : "\n");
            }
            sb.append(close).append(']');
        } else {
            sb.append("{\n");
            Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String key = scalar(MAPPER.getNodeFactory().textNode(e.getKey())) + ": ";
                sb.append(pad).append(key);
                writeNode(sb, e.getValue(), depth + 1, pad.length() + key.length());
                sb.append(it.hasNext() ? ",\n" : "\n");
            }
            sb.append(close).append('}');
        }
    }

    private static String flat(JsonNode node) {
        if (!node.isContainerNode()) {
            return scalar(node);
        }
        StringBuilder sb = new StringBuilder();
        if (node.isArray()) {
            sb.append('[');
            for (int i = 0; i < node.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(flat(node.get(i)));
            }
            return sb.append(']').toString();
        }
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            sb.append(first ? "" : ", ").append(scalar(MAPPER.getNodeFactory().textNode(e.getKey())))
                    .append(": ").append(flat(e.getValue()));
            first = false;
        }
        return sb.append('}').toString();
    }

    private static String scalar(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
