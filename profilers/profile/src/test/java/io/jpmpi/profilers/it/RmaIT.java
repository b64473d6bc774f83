package io.jpmpi.profilers.it;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One-sided communication on a window whose ranks are the world's reversed (rma.c). Origin side
 * only (PROFILE.md): MPI_Put and MPI_Accumulate send their origin bytes, MPI_Get receives them,
 * MPI_Fetch_and_op does both; the matrix has a message from origin to target for every operation
 * that sends, named by the target's world rank (world w puts to w-1, accumulates to w+1, fetches
 * and adds on w+2); a put to MPI_PROC_NULL moves nothing.
 */
class RmaIT {
    static final int RANKS = 4;

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            e.call(r, "MPI_Comm_split").call(r, "MPI_Comm_free").call(r, "MPI_Win_create")
                    .call(r, "MPI_Win_fence", 3).call(r, "MPI_Win_free");
            e.send(r, "MPI_Put", (r + RANKS - 1) % RANKS, 16, 1).io(r, "MPI_Put", 0, 0);
            e.io(r, "MPI_Get", 0, 8);
            e.send(r, "MPI_Accumulate", (r + 1) % RANKS, 4, 1);
            e.io(r, "MPI_Fetch_and_op", 4, 4).msg(r, (r + 2) % RANKS, 4);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void oneSided(Impl impl, Level level) {
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "rma"), level, "rma", expected());
    }
}
