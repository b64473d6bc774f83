package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Persistent requests (persist.c) on 2 ranks, where the left and the right neighbour are the same
 * rank: 2 MPI_Recv_init + 2 MPI_Send_init (no bytes at set-up), STARTALLS x MPI_Startall(4) (each
 * call 2 sends and 2 receives of DOUBLES doubles: its histogram bucket is that of 16 x DOUBLES),
 * STARTS x 4 MPI_Start (each one message's bytes), MPI_Waitall after each round, 4
 * MPI_Request_free. The matrix counts each send at each completion: 2 x (STARTALLS + STARTS)
 * messages to the other rank.
 */
class PersistentIT {
    static final int RANKS = 2;
    static final int STARTALLS = 7;
    static final int STARTS = 3;
    static final int DOUBLES = 200;

    static Expected expected(int n, int startalls, int starts, int doubles) {
        Expected e = new Expected(n).startup().finalizeAll();
        long b = 8L * doubles;
        for (int r = 0; r < n; r++) {
            e.call(r, "MPI_Recv_init", 2);
            e.call(r, "MPI_Send_init", 2);
            e.io(r, "MPI_Startall", 2 * b, 2 * b, startalls);
            e.io(r, "MPI_Start", 0, b, 2L * starts);
            e.io(r, "MPI_Start", b, 0, 2L * starts);
            e.call(r, "MPI_Waitall", startalls + starts);
            e.call(r, "MPI_Request_free", 4);
            e.msg(r, (r + 1) % n, b, startalls + starts);
            e.msg(r, (r - 1 + n) % n, b, startalls + starts);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void persistent(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, RANKS, "persist", Integer.toString(STARTALLS),
                Integer.toString(STARTS), Integer.toString(DOUBLES)).assertSuccess();
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("persist rank " + rank + " rounds=" + (STARTALLS + STARTS) + " ok"),
                    r::describe);
        }
        Expected e = expected(RANKS, STARTALLS, STARTS, DOUBLES);
        if (level == Level.C) {
            Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), e, Snapshot.State.FINALIZE).done();
        } else {
            Checks.of(r).profile(ProfileRun.profile(r), e).complete(ProfileRun.profile(r)).done();
        }
    }
}
