package io.jpmpi.benchmarks;

import io.jpmpi.layering.Interceptor;

/**
 * NoopLevel with typed handles as they would reach an interceptor (issue 22): each call's
 * communicator becomes a {@code Comm} record, which the override hands on and the call unwraps, so
 * the per-call figure next to NoopLevel's says whether the record costs anything (escape analysis
 * removes it when the upcall stub inlines the override; benchmarks/typed-handles/).
 */
public final class NoopTypedLevel extends Interceptor {
    /** A typed communicator handle. */
    public record Comm(long handle) {
    }

    @Override
    public int MPI_Comm_rank(long comm, long rank) {
        return commRank(new Comm(comm), rank);
    }

    @Override
    public int MPI_Iprobe(int source, int tag, long comm, long flag, long status) {
        return iprobe(source, tag, new Comm(comm), flag, status);
    }

    private int commRank(Comm comm, long rank) {
        return pmpi().MPI_Comm_rank(comm.handle(), rank);
    }

    private int iprobe(int source, int tag, Comm comm, long flag, long status) {
        return pmpi().MPI_Iprobe(source, tag, comm.handle(), flag, status);
    }
}
