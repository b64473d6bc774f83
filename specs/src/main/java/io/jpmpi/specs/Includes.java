package io.jpmpi.specs;

/** What generated C that calls the spec's functions includes besides mpi.h. */
public final class Includes {
    /**
     * Open MPI declares its extensions (MPIX_ persistent collectives, ...) in mpi-ext.h, which the
     * spec covers (Toolchain.headers); MPICH declares its MPIX_ functions in mpi.h itself.
     */
    public static final String EXTENSIONS = """
            #if defined(OPEN_MPI) && defined(__has_include)
            #if __has_include(<mpi-ext.h>)
            #include <mpi-ext.h>
            #endif
            #endif
            """;

    private Includes() {
    }
}
