package io.jpmpi.specs.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.SpecJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One MPI's C API as clang read its headers: the JSON that specs/jextract/HeaderFacts.java writes
 * from jextract's libclang binding (specs/regenerate.sh runs it). Types are clang's spellings put
 * in the spec's canonical form ({@link CTypes#normalize}: clang writes {@code int[][3]}, the spec
 * {@code int [][3]}).
 *
 * @param prototypes every MPI_/PMPI_/MPIX_/PMPIX_ function, by name
 * @param typedefs MPI_ type name → its canonical C type and size in bytes
 * @param status the layout of MPI_Status
 */
record ClangHeader(Map<String, Prototype> prototypes, Map<String, Typedef> typedefs, StatusLayout status) {
    /** One C prototype. */
    record Prototype(String name, String returnType, List<CParam> params) {
    }

    /** One C parameter: its abstract type and the header's name for it (null if unnamed). */
    record CParam(String type, String name) {
    }

    /** A typedef: the type it names once every typedef is resolved, and its size. */
    record Typedef(String canonical, long size) {
    }

    /** MPI_Status: its size and its fields in declaration order. */
    record StatusLayout(long size, List<Field> fields) {
    }

    /** A field of a struct: name, C type, byte offset, size. */
    record Field(String name, String type, long offset, long size) {
    }

    static ClangHeader read(Path file) throws IOException {
        JsonNode root = SpecJson.mapper().readTree(file.toFile());
        Map<String, Prototype> protos = new TreeMap<>();
        root.path("functions").properties().forEach(e -> {
            List<CParam> params = new ArrayList<>();
            for (JsonNode p : e.getValue().path("params")) {
                params.add(new CParam(CTypes.normalize(p.path("type").asText()),
                        p.hasNonNull("name") ? p.get("name").asText() : null));
            }
            protos.put(e.getKey(), new Prototype(e.getKey(), CTypes.normalize(e.getValue().path("return").asText()),
                    List.copyOf(params)));
        });
        Map<String, Typedef> typedefs = new TreeMap<>();
        root.path("typedefs").properties().forEach(e -> typedefs.put(e.getKey(),
                new Typedef(e.getValue().path("canonical").asText(), e.getValue().path("size").asLong())));
        List<Field> fields = new ArrayList<>();
        for (JsonNode f : root.path("status").path("fields")) {
            fields.add(new Field(f.path("name").asText(), f.path("type").asText(), f.path("offset").asLong(),
                    f.path("size").asLong()));
        }
        if (protos.isEmpty() || fields.isEmpty()) {
            throw new IllegalArgumentException(file + ": no functions or no MPI_Status fields; was it written by"
                    + " specs/jextract/HeaderFacts.java?");
        }
        return new ClangHeader(protos, typedefs, new StatusLayout(root.path("status").path("size").asLong(),
                List.copyOf(fields)));
    }

    /**
     * Checks what the generators assume of this MPI's types: each of mpi-constants.json's handle
     * types is a pointer or a 4-byte integer, its 32- and 64-bit integer types have those sizes,
     * and MPI_Status has the int fields MPI_SOURCE, MPI_TAG and MPI_ERROR the Java side reads.
     * Returns the problems, one line each naming the culprit.
     */
    List<String> check(String impl, MpiConstants constants) {
        List<String> problems = new ArrayList<>();
        for (String h : constants.handleTypes()) {
            Typedef t = typedefs.get(h);
            if (t != null && !t.canonical().endsWith("*") && t.size() != 4) {
                problems.add(impl + ": handle type " + h + " is " + t.canonical() + " (" + t.size()
                        + " bytes), neither a pointer nor a 4-byte integer");
            }
        }
        for (String i : constants.int32Types()) {
            checkSize(impl, i, 4, problems);
        }
        for (String i : constants.int64Types()) {
            checkSize(impl, i, 8, problems);
        }
        for (String name : List.of("MPI_SOURCE", "MPI_TAG", "MPI_ERROR")) {
            if (status.fields().stream().noneMatch(f -> f.name().equals(name) && f.type().equals("int"))) {
                problems.add(impl + ": MPI_Status has no int field " + name + " (fields: " + status.fields() + ")");
            }
        }
        return problems;
    }

    private void checkSize(String impl, String type, long size, List<String> problems) {
        Typedef t = typedefs.get(type);
        if (t != null && t.size() != size) {
            problems.add(impl + ": " + type + " is " + t.canonical() + " of " + t.size() + " bytes, mpi-constants.json"
                    + " says " + size);
        }
    }
}
