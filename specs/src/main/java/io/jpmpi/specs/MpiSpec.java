package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The whole of {@code specs/mpi-functions.json}: the one description of the MPI C API that every
 * jpmpi generator reads. Immutable; validated once, when built.
 *
 * @param schemaVersion version of the file format (see mpi-functions.schema.json)
 * @param implementations the MPI implementations it was generated against, by id
 * @param functions every MPI C function, sorted by name
 */
@JsonPropertyOrder({"schema_version", "implementations", "functions"})
public record MpiSpec(int schemaVersion, Map<String, Implementation> implementations, List<MpiFunction> functions) {

    public static final int SCHEMA_VERSION = 1;
    /** Classpath location of the committed spec inside the jpmpi-specs jar. */
    public static final String RESOURCE = "/io/jpmpi/specs/mpi-functions.json";

    public MpiSpec {
        Objects.requireNonNull(implementations, "implementations");
        Objects.requireNonNull(functions, "functions");
        implementations = Collections.unmodifiableMap(new TreeMap<>(implementations));
        functions = functions.stream().sorted(java.util.Comparator.comparing(MpiFunction::name)).toList();
        validate(schemaVersion, implementations, functions);
    }

    private static void validate(int version, Map<String, Implementation> impls, List<MpiFunction> functions) {
        if (version != SCHEMA_VERSION) {
            throw new IllegalArgumentException("spec schema_version " + version + ", this jpmpi reads " + SCHEMA_VERSION);
        }
        impls.forEach((id, impl) -> {
            if (!id.equals(impl.id())) {
                throw new IllegalArgumentException("implementation key " + id + " holds id " + impl.id());
            }
        });
        String previous = null;
        for (MpiFunction f : functions) {
            if (f.name().equals(previous)) {
                throw new IllegalArgumentException("function " + f.name() + " is listed twice");
            }
            previous = f.name();
            if (!f.name().startsWith("MPI_") && !f.name().startsWith("MPIX_")) {
                throw new IllegalArgumentException("function " + f.name() + " is not an MPI_/MPIX_ name");
            }
            if (f.implementations().isEmpty()) {
                throw new IllegalArgumentException(f.name() + " is declared by no implementation");
            }
            for (String impl : f.implementations()) {
                if (!impls.containsKey(impl)) {
                    throw new IllegalArgumentException(f.name() + " names unknown implementation " + impl);
                }
                f.returnType(impl);
                for (Parameter p : f.parameters()) {
                    p.cType(impl);
                }
            }
            if (!f.returnType().keySet().equals(new java.util.TreeSet<>(f.implementations()))) {
                throw new IllegalArgumentException(f.name() + ": return_type keys differ from implementations");
            }
            if (f.largeCount() != (f.base() != null)) {
                throw new IllegalArgumentException(f.name() + ": large_count and base must come together");
            }
            for (int i = 0; i < f.parameters().size(); i++) {
                if (f.parameters().get(i).isVarargs() && i != f.parameters().size() - 1) {
                    throw new IllegalArgumentException(f.name() + ": '...' is not the last parameter");
                }
            }
        }
    }

    /** The spec shipped in the jpmpi-specs jar. */
    public static MpiSpec load() {
        try (InputStream in = MpiSpec.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("jpmpi-specs jar lacks " + RESOURCE);
            }
            return SpecJson.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static MpiSpec load(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return SpecJson.read(in);
        }
    }

    /** The functions declared by implementation {@code impl}, in name order. */
    public List<MpiFunction> functionsOf(String impl) {
        List<MpiFunction> out = new ArrayList<>();
        for (MpiFunction f : functions) {
            if (f.declaredBy(impl)) {
                out.add(f);
            }
        }
        return out;
    }

    /** Functions by name, in name order. */
    @JsonIgnore
    public Map<String, MpiFunction> byName() {
        Map<String, MpiFunction> m = new LinkedHashMap<>();
        functions.forEach(f -> m.put(f.name(), f));
        return m;
    }
}
