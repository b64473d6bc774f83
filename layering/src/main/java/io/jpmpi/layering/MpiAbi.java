package io.jpmpi.layering;

import io.jpmpi.layering.runtime.Abi;

/**
 * What differs between MPI ABIs, looked up by name, for interceptors that read MPI's own structures
 * by hand (arrays of handles, MPI_T enumerations): one compiled jar then runs on every MPI. The
 * values come from the MPI's own {@code mpi.h}, through the dispatcher's ABI library.
 */
public final class MpiAbi {
    /** What {@link #integer} returns for a constant this MPI does not define. */
    public static final int MISSING = Integer.MIN_VALUE;

    private MpiAbi() {
    }

    /** Size in bytes of a handle type ("MPI_Comm", "MPI_T_pvar_handle", ...): 8 in Open MPI, 4 in MPICH. */
    public static int handleSize(String type) {
        return Abi.handleSize(type);
    }

    /** An integer constant of mpi.h by name (e.g. "MPI_T_VERBOSITY_USER_BASIC"), or {@link #MISSING}. */
    public static int integer(String name) {
        return Abi.integer(name);
    }
}
