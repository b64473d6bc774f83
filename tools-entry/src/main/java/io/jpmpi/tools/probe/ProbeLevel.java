package io.jpmpi.tools.probe;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_Op;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java level of {@code jpmpi doctor}'s smoke run: it sees the smoke program's MPI_Allreduce
 * and MPI_Barrier pass through, checks that it can ask the level below (rank, size, type size),
 * and reports one line per rank before MPI_Finalize:
 * {@code jpmpi-probe rank R of N: ok allreduce=1 barrier=1 int=4}.
 */
public final class ProbeLevel extends Interceptor {
    private final AtomicLong allreduce = new AtomicLong();
    private final AtomicLong barrier = new AtomicLong();
    private volatile long intSize;

    public ProbeLevel() {
    }

    @Override
    public int MPI_Allreduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
        allreduce.incrementAndGet();
        intSize = level().typeSize(datatype);
        return pmpi().MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }

    @Override
    public int MPI_Barrier(MPI_Comm comm) {
        barrier.incrementAndGet();
        return pmpi().MPI_Barrier(comm);
    }

    @Override
    public void beforeFinalize() {
        System.out.println("jpmpi-probe rank " + level().worldRank() + " of " + level().commSize(
                io.jpmpi.layering.generated.Constants.MPI_COMM_WORLD) + ": ok allreduce=" + allreduce.get()
                + " barrier=" + barrier.get() + " int=" + intSize);
    }
}
