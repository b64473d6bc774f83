package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;

/**
 * Starts a thread of its own after MPI_Init that throws and does not catch
 * (IllegalStateException "thrown on purpose in a tool thread"), then waits for it, and counts
 * MPI_Send calls as usual: the level must go on, and the program's results must not change.
 */
public final class ThreadThrower extends Interceptor {
    private int sends;

    @Override
    public void afterInit() {
        Thread t = new Thread(() -> {
            throw new IllegalStateException("thrown on purpose in a tool thread");
        }, "thrower");
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        sends++;
        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
    }

    @Override
    public void beforeFinalize() {
        System.out.println("thrower rank " + level().worldRank() + ": MPI_Send=" + sends);
    }
}
