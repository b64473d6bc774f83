package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import java.lang.management.ManagementFactory;

/**
 * Measures what the Java level allocates per intercepted call: a pass-through MPI_Send that reads
 * this thread's allocated-bytes counter after a warm-up and again after MEASURE more calls, and
 * prints "alloc rank R: calls=N bytes=B" at MPI_Finalize. Run it with programs/sendloop.c.
 */
public final class AllocProbe extends Interceptor {
    static final long WARMUP = 200_000;
    static final long MEASURE = 200_000;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long calls;
    private long start;
    private long bytes = -1;

    @Override
    public int MPI_Send(long buf, int count, long datatype, int dest, int tag, long comm) {
        calls++;
        if (calls == WARMUP) {
            start = THREADS.getCurrentThreadAllocatedBytes();
        } else if (calls == WARMUP + MEASURE) {
            bytes = THREADS.getCurrentThreadAllocatedBytes() - start;
        }
        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
    }

    @Override
    public int MPI_Finalize() {
        System.out.println("alloc rank " + level().worldRank() + ": calls=" + MEASURE + " bytes=" + bytes);
        return pmpi().MPI_Finalize();
    }
}
