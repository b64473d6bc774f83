package io.jpmpi.specs.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The MPI Forum's machine-readable API description (pympistandard's apis.json, MPI 4.0), read
 * only where the C binding is concerned: non-callback procedures and their C parameters.
 */
final class ForumApis {
    /** One C parameter as the Forum describes it. */
    record ForumParam(String name, String kind, String direction, String length, boolean rootOnly,
                      boolean optional) {
    }

    private final JsonNode root;

    private ForumApis(JsonNode root) {
        this.root = root;
    }

    static ForumApis read(Path file) throws IOException {
        return new ForumApis(new ObjectMapper().readTree(file.toFile()));
    }

    /** The Forum key of a C function ({@code mpi_send} for MPI_Send), or null if it has none. */
    String key(String cName) {
        JsonNode e = root.get(cName.toLowerCase());
        if (e == null || e.path("attributes").path("callback").asBoolean(false)) {
            return null;
        }
        return cName.toLowerCase();
    }

    String returnKind(String key) {
        return root.get(key).path("return_kind").asText(null);
    }

    /** The C parameters of {@code key}; {@code large} selects the MPI 4.0 {@code _c} form. */
    List<ForumParam> cParameters(String key, boolean large) {
        List<ForumParam> out = new ArrayList<>();
        for (JsonNode p : root.get(key).path("parameters")) {
            if (p.path("suppress").asText("").contains("c_parameter")) {
                continue;
            }
            if (p.path("large_only").asBoolean(false) && !large) {
                continue;
            }
            out.add(new ForumParam(p.path("name").asText(), p.path("kind").asText(),
                    p.path("param_direction").asText(), length(p.get("length")),
                    p.path("root_only").asBoolean(false), p.path("optional").asBoolean(false)));
        }
        return out;
    }

    private static String length(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isArray()) {
            List<String> parts = new ArrayList<>();
            n.forEach(x -> parts.add(x.asText()));
            return String.join(", ", parts);
        }
        String s = n.asText();
        return s.isEmpty() ? "*" : s;
    }
}
