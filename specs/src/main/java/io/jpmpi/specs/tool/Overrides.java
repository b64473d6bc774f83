package io.jpmpi.specs.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.jpmpi.specs.Category;
import io.jpmpi.specs.SpecJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * specs/overrides.jsonc: what neither the headers nor the Forum's description give. Read with
 * comments allowed; an unknown top-level key is an error so that typos cannot go unnoticed.
 *
 * @param kindsLike function → a Forum-described function with the same parameter list
 * @param kinds function → its parameters' names, kinds and directions, written out
 * @param categories function → category, where the name rules guess wrong
 * @param notInterceptable function a header declares without its PMPI_ twin → why it is left out
 *                         (no profiling entry point: no tool can wrap it, and the dispatcher could
 *                         not pass it on)
 */
record Overrides(Map<String, String> kindsLike, Map<String, List<ForumApis.ForumParam>> kinds,
                 Map<String, Category> categories, Map<String, String> notInterceptable) {

    private static final Set<String> KEYS = Set.of("kinds_like", "kinds", "categories", "not_interceptable");

    static Overrides read(Path file) throws IOException {
        JsonNode root = SpecJson.commentedMapper().readTree(file.toFile());
        root.fieldNames().forEachRemaining(k -> {
            if (!KEYS.contains(k)) {
                throw new IllegalArgumentException(file + ": unknown key '" + k + "' (known: " + KEYS + ")");
            }
        });
        Map<String, String> like = new TreeMap<>();
        root.path("kinds_like").properties().forEach(e -> like.put(e.getKey(), e.getValue().asText()));
        Map<String, List<ForumApis.ForumParam>> kinds = new TreeMap<>();
        root.path("kinds").properties().forEach(e -> {
            List<ForumApis.ForumParam> ps = new ArrayList<>();
            for (JsonNode p : e.getValue()) {
                ps.add(new ForumApis.ForumParam(p.path("name").asText(), p.path("kind").asText(),
                        p.path("direction").asText(), p.hasNonNull("length") ? p.get("length").asText() : null,
                        p.path("root_only").asBoolean(false), p.path("optional").asBoolean(false)));
            }
            kinds.put(e.getKey(), List.copyOf(ps));
        });
        Map<String, Category> cats = new TreeMap<>();
        root.path("categories").properties().forEach(e -> cats.put(e.getKey(), Category.fromId(e.getValue().asText())));
        Map<String, String> skip = new TreeMap<>();
        root.path("not_interceptable").properties().forEach(e -> skip.put(e.getKey(), e.getValue().asText()));
        return new Overrides(like, kinds, cats, skip);
    }
}
