package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_Op;

/**
 * A Java level whose code raises floating-point status flags (inexact, underflow, denormal) in
 * every call it intercepts before passing it on (MPI_Init, MPI_Comm_rank, MPI_Allreduce, MPI_Wtime),
 * and a `%` on doubles (the one operation that might use the x87 unit).
 * What the application sees of its floating-point state must not show them (FpStateIT).
 */
public final class FpNoise extends Interceptor {
    private static volatile double tiny = 0x1p-1060;
    private static volatile double third = 1.0;
    private static volatile double sink;

    private static void noise() {
        sink = tiny * 0.5 + third / 3.0 + (third * 10.1) % 0.3;
    }

    @Override
    public int MPI_Init(long argc, long argv) {
        noise();
        return pmpi().MPI_Init(argc, argv);
    }

    @Override
    public int MPI_Comm_rank(MPI_Comm comm, long rank) {
        noise();
        return pmpi().MPI_Comm_rank(comm, rank);
    }

    @Override
    public int MPI_Allreduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
        noise();
        return pmpi().MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }

    @Override
    public double MPI_Wtime() {
        noise();
        return pmpi().MPI_Wtime();
    }
}
