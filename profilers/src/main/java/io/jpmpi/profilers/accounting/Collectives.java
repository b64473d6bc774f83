package io.jpmpi.profilers.accounting;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.Level;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.Mpi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The few collectives of the accounting record, to root 0 on the tool's own duplicate of
 * MPI_COMM_WORLD and through the levels below (so neither the recorder nor the application's
 * traffic sees them); buffers come from the caller's arena. An MPI error is an exception.
 */
final class Collectives {
    private final Arena arena;
    private final Level level;
    private final Mpi mpi;
    private final long comm;

    Collectives(Arena arena, Level level, long comm) {
        this.arena = arena;
        this.level = level;
        this.mpi = level.below();
        this.comm = comm;
    }

    int rank() {
        return level.commRank(comm);
    }

    int size() {
        return level.commSize(comm);
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned MPI error " + rc);
        }
    }

    int[] bcastInts(int[] v) {
        MemorySegment m = arena.allocate(4L * v.length, 4);
        for (int i = 0; i < v.length; i++) {
            m.setAtIndex(JAVA_INT, i, v[i]);
        }
        check(mpi.MPI_Bcast(m.address(), v.length, Constants.MPI_INT, 0, comm), "MPI_Bcast");
        return m.toArray(JAVA_INT);
    }

    /** Rank 0's event names (n of them, {@value HwcTotals#NAME} bytes each). */
    String[] bcastNames(String[] mine, int n) {
        if (n == 0) {
            return new String[0];
        }
        MemorySegment m = arena.allocate((long) n * HwcTotals.NAME, 8);
        for (int i = 0; i < Math.min(n, mine.length); i++) {
            byte[] b = mine[i].getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(b, 0, m, JAVA_BYTE, (long) i * HwcTotals.NAME, Math.min(b.length,
                    HwcTotals.NAME - 1));
        }
        check(mpi.MPI_Bcast(m.address(), n * HwcTotals.NAME, Constants.MPI_CHAR, 0, comm), "MPI_Bcast");
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = m.asSlice((long) i * HwcTotals.NAME, HwcTotals.NAME).getString(0);
        }
        return out;
    }

    double[] reduceDoubles(double[] v, long op) {
        MemorySegment in = arena.allocate(8L * v.length, 8);
        MemorySegment out = arena.allocate(8L * v.length, 8);
        for (int i = 0; i < v.length; i++) {
            in.setAtIndex(JAVA_DOUBLE, i, v[i]);
        }
        check(mpi.MPI_Reduce(in.address(), out.address(), v.length, Constants.MPI_DOUBLE, op, 0, comm),
                "MPI_Reduce");
        return out.toArray(JAVA_DOUBLE);
    }

    long[] reduceLongs(long[] v) {
        MemorySegment in = arena.allocate(8L * v.length, 8);
        MemorySegment out = arena.allocate(8L * v.length, 8);
        for (int i = 0; i < v.length; i++) {
            in.setAtIndex(JAVA_LONG, i, v[i]);
        }
        check(mpi.MPI_Reduce(in.address(), out.address(), v.length, Constants.MPI_LONG_LONG, Constants.MPI_SUM,
                0, comm), "MPI_Reduce");
        return out.toArray(JAVA_LONG);
    }

    /** Distinct nodes: one leader per shared-memory communicator. */
    int countNodes() {
        long node = level.sharedMemoryComm(comm);
        int leader = level.commRank(node) == 0 ? 1 : 0;
        level.freeComm(node);
        return (int) reduceLongs(new long[] {leader})[0];
    }
}
