package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One MPI C function. Its profiling twin is always {@code "P" + name}.
 *
 * @param name the C name, e.g. {@code MPI_Send} or {@code MPI_Send_c}
 * @param category its family
 * @param largeCount true for an MPI 4.0 large-count {@code _c} variant
 * @param base for a {@code _c} variant, the function it is the large-count form of
 * @param forum the key of the MPI Forum's description it was joined with, or null
 * @param returnKind the Forum's kind of the return value (ERROR_CODE, WALL_TIME, ...), or null
 * @param returnType the C return type per implementation id
 * @param parameters the C parameters, in order
 * @param implementations the ids of the implementations whose mpi.h declares it (sorted)
 * @param fortran per implementation id, the Fortran symbols its Fortran library exports for it
 */
@JsonPropertyOrder({"name", "category", "large_count", "base", "forum", "return_kind", "return_type",
        "implementations", "parameters", "fortran"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MpiFunction(String name, Category category,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean largeCount, String base, String forum,
                          String returnKind, Map<String, String> returnType, List<String> implementations,
                          List<Parameter> parameters, Map<String, List<String>> fortran) {
    public MpiFunction {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(category, "category of " + name);
        returnType = Collections.unmodifiableMap(new TreeMap<>(returnType));
        implementations = implementations.stream().sorted().toList();
        parameters = List.copyOf(parameters);
        TreeMap<String, List<String>> f = new TreeMap<>();
        if (fortran != null) {
            fortran.forEach((k, v) -> f.put(k, v.stream().sorted().toList()));
        }
        fortran = Collections.unmodifiableMap(f);
    }

    /** {@code PMPI_X} for {@code MPI_X}. */
    @JsonIgnore
    public String pmpiName() {
        return "P" + name;
    }

    public boolean declaredBy(String impl) {
        return implementations.contains(impl);
    }

    /** The C return type in {@code impl}. */
    public String returnType(String impl) {
        String t = returnType.get(impl);
        if (t == null) {
            throw new IllegalArgumentException(name + " is not declared by " + impl);
        }
        return t;
    }

    @JsonIgnore
    public boolean isVarargs() {
        return !parameters.isEmpty() && parameters.getLast().isVarargs();
    }
}
