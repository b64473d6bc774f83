package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A token passed around a ring with blocking MPI_Send/MPI_Recv (ring.c) and the same in Fortran
 * with mpi_send/mpi_recv through `use mpi` (fring.f90): per rank ITERS sends of DOUBLES doubles to
 * the right and ITERS receives from the left, so every rank has MPI_Send ITERS calls and 8 x
 * DOUBLES x ITERS bytes sent, MPI_Recv the same received, both in the histogram bucket of
 * 8 x DOUBLES, the matrix one entry per row (r → r+1: ITERS messages), and nothing else besides
 * MPI_Init, MPI_Comm_rank, MPI_Comm_size and MPI_Finalize once each. C level alone: every rank's
 * dump; full entry: profile.json (sums, per-rank spread, histograms, summary, matrix) and the reports.
 */
class RingIT {
    static final int RANKS = 3;
    static final int ITERS = 20;
    static final int DOUBLES = 1000;

    static Stream<Arguments> cases() {
        return ProfileRun.cases().flatMap(a -> Stream.of("ring", "fring")
                .map(p -> Arguments.of(a.get()[0], a.get()[1], p)));
    }

    static Expected expected(int n, int iters, int doubles) {
        Expected e = new Expected(n).startup().finalizeAll();
        long b = 8L * doubles;
        for (int r = 0; r < n; r++) {
            e.send(r, "MPI_Send", (r + 1) % n, b, iters);
            e.io(r, "MPI_Recv", 0, b, iters);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void ring(Impl impl, Level level, String program) {
        Result r = ProfileRun.run(impl, level, RANKS, program, Integer.toString(ITERS), Integer.toString(DOUBLES))
                .assertSuccess();
        assertEquals(1, r.countOut(program + " ranks=" + RANKS + " iters=" + ITERS + " doubles=" + DOUBLES + " ok"),
                r::describe);
        Expected e = expected(RANKS, ITERS, DOUBLES);
        if (level == Level.C) {
            Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), e, Snapshot.State.FINALIZE).done();
        } else {
            Checks.of(r).profile(ProfileRun.profile(r), e).complete(ProfileRun.profile(r)).done();
        }
    }
}
