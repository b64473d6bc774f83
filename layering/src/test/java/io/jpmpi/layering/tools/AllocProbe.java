package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import java.lang.management.ManagementFactory;

/**
 * Measures what the Java level allocates per intercepted call: a pass-through MPI_Send that reads
 * this thread's allocated-bytes counter after a warm-up, then around each of WINDOWS windows of
 * MEASURE calls, and prints "alloc rank R: calls=N bytes=B" at MPI_Finalize with the smallest
 * window. An allocation per call shows in every window; a one-off one (the JIT replacing code
 * while the run goes on, a deoptimization re-creating objects it had scalar-replaced) in one at
 * most. Run it with programs/sendloop.c and at least WARMUP + WINDOWS * MEASURE calls.
 */
public final class AllocProbe extends Interceptor {
    static final long WARMUP = 200_000;
    static final long MEASURE = 200_000;
    static final int WINDOWS = 5;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long calls;
    private long start;
    private long bytes = -1;

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        calls++;
        if (calls >= WARMUP && calls <= WARMUP + WINDOWS * MEASURE && (calls - WARMUP) % MEASURE == 0) {
            long now = THREADS.getCurrentThreadAllocatedBytes();
            if (calls > WARMUP) {
                long window = now - start;
                bytes = bytes < 0 ? window : Math.min(bytes, window);
            }
            start = THREADS.getCurrentThreadAllocatedBytes(); // after the reading itself
        }
        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
    }

    @Override
    public int MPI_Finalize() {
        System.out.println("alloc rank " + level().worldRank() + ": calls=" + MEASURE + " bytes=" + bytes);
        return pmpi().MPI_Finalize();
    }
}
