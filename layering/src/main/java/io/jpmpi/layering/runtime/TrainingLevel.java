package io.jpmpi.layering.runtime;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;

/** The interceptor of the AOT training run (Train): the shape of a typical small tool. */
public final class TrainingLevel extends Interceptor {
    private long calls;

    @Override
    public int MPI_Comm_rank(MPI_Comm comm, long rank) {
        calls++;
        return pmpi().MPI_Comm_rank(comm, rank);
    }

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        calls++;
        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
    }

    @Override
    public void afterInit() {
        calls = 0;
    }

    long calls() {
        return calls;
    }
}
