package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code specs/mpi-constants.json}: the C types of the MPI API that are not plain C types, and the
 * predefined handles and constants the Java bindings expose. Names only: their values belong to
 * the ABI of each MPI library, so the dispatcher built for that library exports them (compiled
 * against its mpi.h) and the Java side reads them at start-up.
 *
 * @param schemaVersion version of the file format
 * @param handleTypes opaque handle types: a pointer in Open MPI, an int in MPICH
 * @param int32Types integer types of 32 bits in every implementation
 * @param int64Types integer types of 64 bits in every implementation
 * @param constants constant names by type: a handle type, {@code int} or {@code address}
 * @param optional constants that some implementation does not define
 */
@JsonPropertyOrder({"schema_version", "handle_types", "int32_types", "int64_types", "constants", "optional"})
public record MpiConstants(int schemaVersion, List<String> handleTypes, List<String> int32Types, List<String> int64Types,
        Map<String, List<String>> constants, Set<String> optional) {

    public static final String RESOURCE = "/io/jpmpi/specs/mpi-constants.json";
    public static final String INT = "int";
    public static final String ADDRESS = "address";

    public MpiConstants {
        handleTypes = List.copyOf(handleTypes);
        int32Types = List.copyOf(int32Types);
        int64Types = List.copyOf(int64Types);
        constants = Collections.unmodifiableMap(new LinkedHashMap<>(constants));
        optional = Collections.unmodifiableSet(new TreeSet<>(optional));
        Set<String> seen = new HashSet<>();
        for (Map.Entry<String, List<String>> e : constants.entrySet()) {
            String type = e.getKey();
            if (!type.equals(INT) && !type.equals(ADDRESS) && !handleTypes.contains(type)) {
                throw new IllegalArgumentException("constants of unknown type " + type);
            }
            for (String name : e.getValue()) {
                if (!seen.add(name)) {
                    throw new IllegalArgumentException("constant " + name + " is listed twice");
                }
            }
        }
        if (!seen.containsAll(optional)) {
            throw new IllegalArgumentException("optional names a constant that is not listed");
        }
    }

    /** The copy shipped in the jpmpi-specs jar. */
    public static MpiConstants load() {
        try (InputStream in = MpiConstants.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            return SpecJson.mapper().readValue(in, MpiConstants.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every constant, in file order, with its type. */
    public Map<String, String> typeOfConstant() {
        Map<String, String> all = new LinkedHashMap<>();
        constants.forEach((type, names) -> names.forEach(n -> all.put(n, type)));
        return all;
    }
}
