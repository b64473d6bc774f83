package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Non-blocking communicator creation (idup.c, 6 ranks): on three communicators, five non-blocking
 * collectives each followed by a non-blocking duplicate (MPI_Comm_idup; on an MPI-4 library every
 * other one MPI_Comm_idup_with_info), one MPI_Waitall, then each duplicate used (a ring
 * MPI_Sendrecv, an MPI_Allreduce) and freed. The run ends, as without jpmpi (the recorder touches
 * no communicator before its request completes), every rank's results check, and the figures of
 * the calls that say most about it are exact on every rank: 15 duplicates, 3 MPI_Waitall, 6
 * MPI_Ibarrier, 3 each of MPI_Ibcast, MPI_Iallreduce and MPI_Iscan, 15 MPI_Sendrecv of 4 bytes each
 * way.
 */
class IdupIT {
    static final int RANKS = 6;

    /** Per rank: function -> {calls, bytes sent, bytes received} (only the functions checked). */
    static Map<String, long[]> expected(Impl impl) {
        Map<String, long[]> e = new TreeMap<>();
        boolean mpi4 = impl == Impl.MPICH;
        e.put("MPI_Comm_idup", new long[] {mpi4 ? 9 : 15, 0, 0});
        if (mpi4) {
            e.put("MPI_Comm_idup_with_info", new long[] {6, 0, 0});
        }
        e.put("MPI_Waitall", new long[] {3, 0, 0});
        e.put("MPI_Ibarrier", new long[] {6, 0, 0});
        e.put("MPI_Sendrecv", new long[] {15, 60, 60});
        e.put("MPI_Comm_free", new long[] {17, 0, 0});
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void nothingTouchesACommunicatorBeforeItIsMade(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, RANKS, "idup").assertSuccess();
        assertFalse(r.timedOut(), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("idup rank " + rank + ": ok"), r::describe);
        }
        Map<String, long[]> want = expected(impl);
        if (level == Level.C) {
            for (Snapshot s : ProfileRun.snapshots(r, RANKS)) {
                for (int f = 0; f < s.names().length; f++) {
                    long[] w = want.get(s.names()[f]);
                    if (w != null) {
                        long[] st = s.stats()[f];
                        assertEquals(w[0], st[Snapshot.CALLS], () -> "rank " + s.rank() + "\n" + r.describe());
                        assertEquals(w[1], st[Snapshot.SENT], () -> "rank " + s.rank() + "\n" + r.describe());
                        assertEquals(w[2], st[Snapshot.RECV], () -> "rank " + s.rank() + "\n" + r.describe());
                    }
                }
            }
        } else {
            Map<String, long[]> got = new TreeMap<>();
            ProfileRun.profile(r).functions().forEach(f -> got.put(f.name(),
                    new long[] {f.calls(), f.bytesSent(), f.bytesRecv()}));
            want.forEach((fn, w) -> {
                long[] g = got.get(fn);
                assertEquals(Arrays.toString(new long[] {w[0] * RANKS, w[1] * RANKS, w[2] * RANKS}),
                        Arrays.toString(g), () -> fn + "\n" + r.describe());
            });
        }
    }
}
