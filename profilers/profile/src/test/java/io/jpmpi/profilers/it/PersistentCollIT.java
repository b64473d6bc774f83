package io.jpmpi.profilers.it;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Persistent collectives (pcoll.c, 3 ranks): Open MPI 4.1's extension functions
 * (MPIX_Allreduce_init, MPIX_Bcast_init from mpi-ext.h, in the spec since the spec reads mpi-ext.h)
 * and MPICH 4.0's MPI 4.0 functions, counted the same way: no bytes at set-up, and each MPI_Start
 * carries its collective's bytes (PROFILE.md), no matrix. Before the extension was in the spec,
 * Open MPI's MPIX_ calls were neither counted nor intercepted and their starts carried 0 bytes.
 */
class PersistentCollIT {
    static final int RANKS = 3;
    static final int ITERS = 3;

    static Expected expected(Impl impl) {
        String prefix = impl == Impl.OPENMPI ? "MPIX_" : "MPI_";
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            e.call(r, prefix + "Allreduce_init").call(r, prefix + "Bcast_init").call(r, "MPI_Wait", 2 * ITERS)
                    .call(r, "MPI_Request_free", 2);
            // allreduce: its 16-byte vector to and from each other rank
            e.io(r, "MPI_Start", 16 * (RANKS - 1), 16 * (RANKS - 1), ITERS);
            // bcast from rank 0: 16 bytes to each other rank; the others receive 16
            e.io(r, "MPI_Start", r == 0 ? 16 * (RANKS - 1) : 0, r == 0 ? 0 : 16, ITERS);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void eachStartCarriesItsBytes(Impl impl, Level level) {
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "pcoll", Integer.toString(ITERS)), level, "pcoll",
                expected(impl));
    }
}
