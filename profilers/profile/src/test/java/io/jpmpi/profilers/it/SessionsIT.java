package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MPI-4 sessions model (sessions.c, 3 ranks), on MPICH (Open MPI 4.1 has no sessions: the
 * program says so and the case is a skip that repeats it).
 *
 * <p>only: a program that never calls MPI_Init. Recording starts at its MPI_Session_init (the
 * recorder opens a session of its own for the "mpi://world" group, which translates ranks where
 * MPI_COMM_WORLD would) and ends at its last MPI_Session_finalize as at MPI_Finalize: every rank's
 * figures in a dump, state FINALIZE, exact (the Sendrecv in the matrix under world ranks), merged
 * into a complete profile (jpmpi run does that merge).
 *
 * <p>mixed: MPI_Init, the same session traffic and an MPI_Allreduce on MPI_COMM_WORLD: recording
 * by the world model, the session's calls counted with the rest; with the Java level, profile.json
 * as for any run.
 */
class SessionsIT {
    static final int RANKS = 3;

    static Stream<Arguments> cases() {
        return ProfileRun.cases().flatMap(a -> Stream.of("only", "mixed").map(m -> Arguments.of(a.get()[0], a.get()[1], m)));
    }

    static Expected expected(boolean mixed) {
        Expected e = new Expected(RANKS);
        if (mixed) {
            e.startup().finalizeAll();
        }
        for (int r = 0; r < RANKS; r++) {
            e.call(r, "MPI_Session_init").call(r, "MPI_Group_from_session_pset").call(r, "MPI_Comm_create_from_group")
                    .call(r, "MPI_Comm_rank").call(r, "MPI_Comm_size").call(r, "MPI_Comm_free").call(r, "MPI_Group_free");
            e.io(r, "MPI_Sendrecv", 4, 4).msg(r, (r + 1) % RANKS, 4);
            e.io(r, "MPI_Allreduce", 4 * (RANKS - 1), 4 * (RANKS - 1), mixed ? 2 : 1);
            for (int j = 0; j < RANKS; j++) {
                e.msg(r, j, 4, mixed ? 2 : 1);
            }
            if (mixed) {
                e.call(r, "MPI_Comm_size").call(r, "MPI_Session_finalize");
            }
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void sessions(Impl impl, Level level, String mode) throws IOException {
        boolean mixed = mode.equals("mixed");
        Result r = ProfileRun.run(impl, level, RANKS, "sessions", mode).assertSuccess();
        assumeTrue(r.out().stream().noneMatch(l -> l.startsWith("sessions: no sessions")),
                () -> impl.displayName + ": " + r.out().get(0));
        if (mixed) {
            Checks.exactly(r, level, "sessions", expected(true));
            return;
        }
        Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), expected(false), Snapshot.State.FINALIZE).done();
        Profile p = RankDumps.merge(ProfileRun.dir(r));
        assertFalse(p.partial(), () -> p.partialReasons() + "\n" + r.describe());
    }
}
