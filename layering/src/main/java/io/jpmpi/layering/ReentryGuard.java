package io.jpmpi.layering;

import io.jpmpi.layering.runtime.CallMarks;

/**
 * The "already inside" guard against double counting, per thread: an MPI function implemented
 * with other MPI calls, or a tool's own MPI calls, re-enter the chain. Allocation-free.
 *
 * <pre>{@code
 * private final ReentryGuard guard = new ReentryGuard();
 *
 * public int MPI_Allreduce(...) {
 *     boolean outermost = guard.enter();
 *     try {
 *         if (outermost) count++;
 *         return pmpi().MPI_Allreduce(...);
 *     } finally {
 *         guard.exit();
 *     }
 * }
 * }</pre>
 */
public final class ReentryGuard {
    private final int index = CallMarks.allocateGuard();

    /** Enters; true if this thread was not already inside. Always pair with {@link #exit()}. */
    public boolean enter() {
        int[] depth = CallMarks.guards(index);
        return depth[index]++ == 0;
    }

    public void exit() {
        CallMarks.guards(index)[index]--;
    }

    /** True while this thread is between enter and exit. */
    public boolean inside() {
        return CallMarks.guards(index)[index] > 0;
    }
}
