package io.jpmpi.profilers.it;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Neighbourhood collectives (neighbor.c) on a periodic ring, a non-periodic chain (blocking and
 * non-blocking), a non-periodic 2 x 2 grid and a distributed graph of 4 ranks: bytes only, no matrix (PROFILE.md). A rank sends a block to each out-neighbour
 * and receives one from each in-neighbour (the v and w forms: the blocks' own counts and types); at
 * the chain's ends the missing neighbour is MPI_PROC_NULL, and nothing moves to or from it.
 */
class NeighborIT {
    static final int RANKS = 4;

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            e.call(r, "MPI_Cart_create", 3).call(r, "MPI_Dist_graph_create_adjacent").call(r, "MPI_Comm_free", 4)
                    .call(r, "MPI_Wait");
            // ring: 3 ints to and from each of 2 neighbours; alltoall 2 ints a block; alltoallv 1 + 2
            e.io(r, "MPI_Neighbor_allgather", 24, 24).io(r, "MPI_Neighbor_alltoall", 16, 16)
                    .io(r, "MPI_Neighbor_alltoallv", 12, 12);
            long chain = r == 0 || r == RANKS - 1 ? 4 : 8;
            e.io(r, "MPI_Neighbor_allgather", chain, chain);
            // chain alltoallw: an int (4) to the left, a double (8) to the right, and back
            long toLeft = r == 0 ? 0 : 4;
            long toRight = r == RANKS - 1 ? 0 : 8;
            long fromLeft = r == 0 ? 0 : 8;
            long fromRight = r == RANKS - 1 ? 0 : 4;
            e.io(r, "MPI_Neighbor_alltoallw", toLeft + toRight, fromLeft + fromRight);
            // chain Ineighbor_alltoall: 3 ints to and from each real neighbour (1 at the ends, 2 inside)
            e.io(r, "MPI_Ineighbor_alltoall", 12 * (chain / 4), 12 * (chain / 4));
            // 2 x 2 non-periodic grid: every rank has 2 real neighbours, 2 ints each way
            e.io(r, "MPI_Neighbor_allgather", 16, 16);
            long out = r == 0 ? 2 : 1;
            long in = r == 2 ? 2 : 1;
            e.io(r, "MPI_Neighbor_allgather", 20 * out, 20 * in);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void neighbourhood(Impl impl, Level level) {
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "neighbor"), level, "neighbor", expected());
    }
}
