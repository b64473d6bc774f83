package io.jpmpi.layering.runtime;

import io.jpmpi.layering.Interceptor;

/** The interceptor of the AOT training run (Train): the shape of a typical small tool. */
public final class TrainingLevel extends Interceptor {
    private long calls;

    @Override
    public int MPI_Comm_rank(long comm, long rank) {
        calls++;
        return pmpi().MPI_Comm_rank(comm, rank);
    }

    @Override
    public int MPI_Send(long buf, int count, long datatype, int dest, int tag, long comm) {
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
