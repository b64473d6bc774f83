package io.jpmpi.bindings.c;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jpmpi.specs.Category;
import io.jpmpi.specs.MpiFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The profile tool's per-function semantics, read from the file the tool keeps beside its recorder
 * (profilers/profile/src/main/c/semantics.json): for a function, the lines its generated wrapper runs
 * before and after the PMPI call, and whether the call's bytes count. The file holds only these
 * hand-written bodies; {@link ProfileEmitter} writes the rest of every wrapper.
 */
public final class ProfileSemantics {
    /**
     * What a wrapper does besides timing: lines before and after the PMPI call, whether it moves bytes,
     * and whether the lines after the call read only the call's arguments ({@code inputs}: not its
     * result, not what it wrote), so that an untimed call may run them before it (the quick path);
     * {@code quickWhen}: a C condition under which the lines have nothing to do (the quick path then
     * runs none of them), or null; {@code lean}: the lean path of a function with bytes, a call of a
     * recorder.h helper (jp_lean_send) that counts an untimed call from its arguments without calling
     * out, to which the wrapper gives the thread, the function and the sign first, or null.
     */
    public record Semantics(List<String> pre, List<String> post, boolean bytes, boolean inputs, String quickWhen,
            String lean) {
        public Semantics {
            pre = List.copyOf(pre);
            post = List.copyOf(post);
        }
    }

    private static final Set<String> KEYS = Set.of("note", "functions", "pre", "post", "bytes", "inputs", "quick_when",
            "lean");

    private final Map<String, Semantics> byName;

    private ProfileSemantics(Map<String, Semantics> byName) {
        this.byName = byName;
    }

    /** Reads {@code file}; a malformed file is an error naming it and the entry. */
    public static ProfileSemantics load(Path file) throws IOException {
        return parse(file.toString(), Files.readString(file));
    }

    /** Parses the semantics in {@code json}; {@code source} names it in errors. */
    public static ProfileSemantics parse(String source, String json) throws IOException {
        JsonNode root = new ObjectMapper().readTree(json);
        JsonNode entries = root == null ? null : root.get("semantics");
        if (entries == null || !entries.isArray()) {
            throw new IOException(source + ": no \"semantics\" array");
        }
        Map<String, Semantics> m = new LinkedHashMap<>();
        for (JsonNode e : entries) {
            for (var keys = e.fieldNames(); keys.hasNext(); ) {
                String k = keys.next();
                if (!KEYS.contains(k)) {
                    throw new IOException(source + ": unknown key \"" + k + "\" in " + e);
                }
            }
            JsonNode bytes = e.get("bytes");
            if (!e.path("functions").isArray() || bytes == null || !bytes.isBoolean()) {
                throw new IOException(source + ": an entry needs \"functions\" (an array) and \"bytes\""
                        + " (true or false): " + e);
            }
            JsonNode inputs = e.get("inputs");
            if (inputs != null && !inputs.isBoolean()) {
                throw new IOException(source + ": \"inputs\" is true or false: " + e);
            }
            JsonNode when = e.get("quick_when");
            if (when != null && (!when.isTextual() || when.asText().isBlank())) {
                throw new IOException(source + ": \"quick_when\" is a C condition (a string): " + e);
            }
            JsonNode lean = e.get("lean");
            if (lean != null && (!lean.isTextual() || !lean.asText().matches("jp_lean_\\w+\\(.*\\)")
                    || !bytes.booleanValue() || inputs == null || !inputs.booleanValue())) {
                throw new IOException(source + ": \"lean\" is a call of a jp_lean_ helper, for a function with"
                        + " bytes whose lines read only its arguments: " + e);
            }
            Semantics s = new Semantics(lines(e, "pre"), lines(e, "post"), bytes.booleanValue(),
                    inputs != null && inputs.booleanValue(), when == null ? null : when.asText(),
                    lean == null ? null : lean.asText());
            for (JsonNode f : e.get("functions")) {
                if (m.put(f.asText(), s) != null) {
                    throw new IOException(source + ": " + f.asText() + " is listed twice");
                }
            }
        }
        return new ProfileSemantics(m);
    }

    private static List<String> lines(JsonNode entry, String key) {
        List<String> out = new ArrayList<>();
        entry.path(key).forEach(l -> out.add(l.asText()));
        return out;
    }

    /** The semantics of {@code f} (null: timing only). */
    public Semantics of(MpiFunction f) {
        String key = key(f);
        Semantics s = byName.get(key);
        if (s == null && key.startsWith("MPIX_")) {
            // an extension that a later standard made MPI_ (Open MPI 4.1's MPIX_Bcast_init is MPI 4.0's MPI_Bcast_init)
            s = byName.get("MPI_" + key.substring(5));
        }
        return s;
    }

    /**
     * The key of a function in the table: its base for {@code _c} variants; the blocking name for
     * non-blocking collectives ({@code MPI_Ibcast} → {@code MPI_Bcast}); persistent collectives keep
     * their {@code _init} name.
     */
    static String key(MpiFunction f) {
        String name = f.largeCount() && f.base() != null ? f.base() : f.name();
        if (f.category() == Category.COLL_NONBLOCKING && name.startsWith("MPI_I")) {
            return "MPI_" + Character.toUpperCase(name.charAt(5)) + name.substring(6);
        }
        return name;
    }
}
