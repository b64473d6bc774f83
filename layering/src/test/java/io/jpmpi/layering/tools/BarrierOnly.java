package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;

/** Overrides one function, so exactly one upcall stub exists. */
public final class BarrierOnly extends Interceptor {
    @Override
    public int MPI_Barrier(MPI_Comm comm) {
        return pmpi().MPI_Barrier(comm);
    }
}
