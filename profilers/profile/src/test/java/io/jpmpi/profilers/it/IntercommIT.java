package io.jpmpi.profilers.it;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Traffic across an inter-communicator whose groups are not in world order (intercomm.c: groups
 * {2, 0} and {3, 1}). Point-to-point on it goes into the matrix under the remote process's world
 * rank (the recorder maps an inter-communicator's ranks through its remote group); its collectives
 * count bytes only (PROFILE.md: no matrix for inter-communicator collectives): MPI_Bcast from
 * MPI_ROOT sends its 20 bytes to each of the 2 remote processes, MPI_PROC_NULL moves nothing, the
 * other group receives 20; MPI_Allreduce sends its 12-byte vector to and receives one from each of
 * the 2 remote processes.
 */
class IntercommIT {
    static final int RANKS = 4;

    /** World rank of local rank l in the group of parity `color` (the split reverses the order). */
    static int worldOf(int color, int l) {
        return color + 2 * (1 - l);
    }

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            int color = r % 2;
            int l = r < 2 ? 1 : 0;
            e.call(r, "MPI_Comm_rank").call(r, "MPI_Comm_split").call(r, "MPI_Intercomm_create")
                    .call(r, "MPI_Comm_free", 2);
            e.send(r, "MPI_Send", worldOf(1 - color, 1 - l), 32, 1).io(r, "MPI_Recv", 0, 32);
            long[] bcastSent = {0, 0, 40, 0};
            e.io(r, "MPI_Bcast", bcastSent[r], color == 1 ? 20 : 0);
            e.io(r, "MPI_Allreduce", 24, 24);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void intercommunicator(Impl impl, Level level) {
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "intercomm"), level, "intercomm", expected());
    }
}
