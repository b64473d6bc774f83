package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One C parameter of an MPI function.
 *
 * @param name the MPI Forum's name for it (the header's name where the Forum has none)
 * @param kind the Forum's semantic kind (BUFFER, DATATYPE, RANK, POLYXFER_NUM_ELEM_NNI, ...), or null
 * @param kindSource where {@code kind} and {@code direction} came from
 * @param direction in / out / inout, or null when unknown
 * @param length the array length expression when the parameter is an array ("count", "*", ...)
 * @param rootOnly significant only at the root of a rooted collective
 * @param optional may be MPI_*_NULL / MPI_STATUS_IGNORE-like
 * @param cType the exact C type (abstract declarator, name removed) per implementation id
 */
@JsonPropertyOrder({"name", "kind", "kind_source", "direction", "length", "root_only", "optional", "c_type"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Parameter(String name, String kind, KindSource kindSource, Direction direction, String length,
                        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean rootOnly,
                        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean optional, Map<String, String> cType) {
    public Parameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kindSource, "kind_source");
        Objects.requireNonNull(cType, "c_type");
        cType = java.util.Collections.unmodifiableMap(new TreeMap<>(cType));
    }

    /** The C type in implementation {@code impl}; throws if the implementation lacks the function. */
    public String cType(String impl) {
        String t = cType.get(impl);
        if (t == null) {
            throw new IllegalArgumentException("parameter " + name + " has no C type for " + impl);
        }
        return t;
    }

    @JsonIgnore
    public boolean isVarargs() {
        return cType.values().stream().anyMatch("..."::equals);
    }
}
