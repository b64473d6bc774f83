package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * One MPI implementation the spec was generated against.
 *
 * @param id short key used throughout the spec ({@code openmpi}, {@code mpich})
 * @param name human name
 * @param version the library version from its mpi.h
 * @param mpiVersion the MPI standard version it declares (MPI_VERSION.MPI_SUBVERSION)
 * @param compiler the compiler wrapper whose preprocessed mpi.h was read
 * @param fortranLibraries the Fortran binding libraries whose exported symbols were listed
 */
@JsonPropertyOrder({"id", "name", "version", "mpi_version", "compiler", "fortran_libraries"})
public record Implementation(String id, String name, String version, String mpiVersion, String compiler,
                             List<String> fortranLibraries) {
    public Implementation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        fortranLibraries = List.copyOf(fortranLibraries == null ? List.of() : fortranLibraries);
    }
}
