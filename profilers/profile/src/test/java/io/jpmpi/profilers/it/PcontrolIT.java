package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Pcontrol regions (pcontrol.c, its comment has the phases): nothing called between
 * MPI_Pcontrol(0) and MPI_Pcontrol(1) is counted (the Waitall, ITERS Sendrecv, the Barrier, an
 * Isend/Irecv pair, nor MPI_Pcontrol(1) itself; MPI_Pcontrol(0) and (2) are); an MPI_Isend posted
 * while recording is on and completed while it is off is in the matrix (its bytes were counted at
 * the post), one posted while off and completed while on is not. MPI_Pcontrol(2) writes the dump
 * mid-run (state FLUSH; the program copies it to flush/rank-R.bin before going on): phases A and C
 * only. At the end (dump or profile.json) D's ITERS Sendrecv and an MPI_Bcast from rank 0 are added.
 */
class PcontrolIT {
    static final int RANKS = 3;
    static final int ITERS = 4;
    static final int DOUBLES = 100;

    /** What is recorded up to MPI_Pcontrol(2). */
    static Expected atFlush(int n, int iters, int doubles) {
        Expected e = new Expected(n).startup();
        long b = 8L * doubles;
        for (int r = 0; r < n; r++) {
            int right = (r + 1) % n;
            e.io(r, "MPI_Sendrecv", b, b, 2L * iters).msg(r, right, b, 2L * iters);  // A and C
            e.send(r, "MPI_Isend", right, b, 1);                                    // A's, completed in B
            e.io(r, "MPI_Irecv", 0, b);
            e.call(r, "MPI_Pcontrol", 2);                                          // (0) and (2)
            e.call(r, "MPI_Waitall");                                              // C's (of B's posts)
        }
        return e;
    }

    static Expected atEnd(int n, int iters, int doubles) {
        Expected e = atFlush(n, iters, doubles).finalizeAll();
        long b = 8L * doubles;
        for (int r = 0; r < n; r++) {
            e.io(r, "MPI_Sendrecv", b, b, iters).msg(r, (r + 1) % n, b, iters);
            if (r == 0) {
                e.io(r, "MPI_Bcast", b * (n - 1), 0);
                for (int j = 1; j < n; j++) {
                    e.msg(0, j, b);
                }
            } else {
                e.io(r, "MPI_Bcast", 0, b);
            }
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void regions(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, RANKS, "pcontrol", Integer.toString(ITERS), Integer.toString(DOUBLES))
                .assertSuccess();
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("pcontrol rank " + rank + " ok"), r::describe);
        }
        Checks c = Checks.of(r);
        Expected flush = atFlush(RANKS, ITERS, DOUBLES);
        for (int rank = 0; rank < RANKS; rank++) {
            Snapshot s = ProfileRun.snapshot(r, ProfileRun.dir(r).resolve("flush").resolve("rank-" + rank + ".bin"));
            c.snapshot(s, flush, rank, Snapshot.State.FLUSH);
        }
        Expected end = atEnd(RANKS, ITERS, DOUBLES);
        if (level == Level.C) {
            c.snapshots(ProfileRun.snapshots(r, RANKS), end, Snapshot.State.FINALIZE);
        } else {
            c.profile(ProfileRun.profile(r), end).complete(ProfileRun.profile(r));
        }
        c.done();
    }
}
