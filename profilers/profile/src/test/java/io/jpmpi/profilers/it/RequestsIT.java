package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many requests and many communicators (reqs.c) on 2 ranks: ROUNDS rounds of K MPI_Irecv + K
 * MPI_Isend of one int and one MPI_Waitall of all 2K, then DUPS duplicates of MPI_COMM_WORLD, each
 * with one message to the other rank and freed. K sends live at once take the recorder's request
 * table past its first size (it grows), 2K handles in one completion call are copied off the stack,
 * ROUNDS x K sends (6 000) and DUPS communicators (1 100) are more than the old fixed tables held
 * (4 096 requests, 1 024 communicators), whose removed entries stayed behind. Every message is in
 * the matrix, exactly: ROUNDS x K + DUPS to the other rank. The recorder alone: its tables are the
 * same under the profile's Java level, which took ~20 s a run here (and MPICH on 3 oversubscribed
 * ranks ~19 s plain: the duplicates).
 */
class RequestsIT {
    static final int RANKS = 2;
    static final int ROUNDS = 20;
    static final int K = 300;
    static final int DUPS = 1100;

    static Expected expected(int n) {
        Expected e = new Expected(n).startup().finalizeAll();
        for (int r = 0; r < n; r++) {
            int right = (r + 1) % n;
            e.io(r, "MPI_Irecv", 0, 4, (long) ROUNDS * K);
            e.send(r, "MPI_Isend", right, 4, (long) ROUNDS * K);
            e.call(r, "MPI_Waitall", ROUNDS);
            e.call(r, "MPI_Comm_dup", DUPS).call(r, "MPI_Comm_free", DUPS).call(r, "MPI_Wait", DUPS);
            e.send(r, "MPI_Isend", right, 4, DUPS);
            e.io(r, "MPI_Recv", 0, 4, DUPS);
        }
        return e;
    }

    static Stream<Impl> impls() {
        return MpiRun.implementations();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void everyRequestAndCommunicatorCounted(Impl impl) {
        Level level = Level.C;
        Result r = ProfileRun.run(impl, level, RANKS, "reqs", Integer.toString(ROUNDS), Integer.toString(K),
                Integer.toString(DUPS)).assertSuccess();
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("reqs rank " + rank + " ok"), r::describe);
        }
        Expected e = expected(RANKS);
        Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), e, Snapshot.State.FINALIZE).done();
    }
}
