package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves what a level's own MPI calls reach. tools/selftool.c wraps MPI_Send and, inside it,
 * calls MPI_Comm_rank by its MPI_ name (which it also wraps) and then PMPI_Send. Listed above
 * liblogb.so: its MPI_Comm_rank call reaches its own wrapper (a level's MPI_X reaches its own
 * definition, else the library), whose PMPI_Comm_rank goes to the library (it is not the call the
 * wrapper intercepted); its PMPI_Send reaches liblogb.so's MPI_Send (the next level defining it),
 * and the program's MPI_Comm_rank reaches it too. With a counting level on top, that level never
 * sees selftool's own MPI_Comm_rank calls (they do not go back up the chain), and selftool never
 * sees the counting level's own PMPI_Comm_rank (it goes to the library).
 */
class MpiVersusPmpiIT {
    static final int K = 2;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void ownMpiCallStaysInTheLevelAndPmpiCallGoesToTheNextLevel(Impl impl) {
        Result r = MpiRun.on(impl).ranks(3)
                .levels(MpiRun.entry(impl.file("libself.so"), impl.file("liblogb.so")))
                .withLog().run("pingpong", Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(3, K)), r::describe);
        for (int rank = 0; rank < 3; rank++) {
            // the program's own MPI_Comm_rank, right after MPI_Init
            assertEquals(expectedLog(rank, 1), r.log(rank), "log of rank " + rank + "\n" + r.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void levelAboveDoesNotSeeTheOwnMpiCallsOfALevelBelow(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2)
                .levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libself.so"), impl.file("liblogb.so")))
                .withLog().run("pingpong", Integer.toString(K)).assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            // only the program's MPI_Comm_rank: counttool's own PMPI_Comm_rank after MPI_Init goes to the library
            assertEquals(expectedLog(rank, 1), r.log(rank), "log of rank " + rank + "\n" + r.describe());
            // 1: the program's only; selftool's MPI_Comm_rank inside every MPI_Send is not counted
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aCallEnteringBelowTheTopGoesOnFromThere(Impl impl) {
        // MPI_Recv and MPI_Barrier: selftool (top) does not define them, counttool (1) and liblogb (2) do:
        // the call enters at counttool, whose PMPI_X must reach liblogb, not counttool again.
        Result r = MpiRun.on(impl).ranks(2)
                .levels(MpiRun.entry(impl.file("libself.so"), impl.file("libcount.so"), impl.file("liblogb.so")))
                .withLog().run("pingpong", Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        for (int rank = 0; rank < 2; rank++) {
            // MPI_Comm_rank 2: the program's, and the PMPI_Comm_rank selftool's logging makes inside its
            // own MPI_Comm_rank wrapper: a PMPI_X from inside MPI_X is the wrapped call, every time
            assertEquals(Pingpong.counts(K, rank, 2), r.counts("count", rank), r::describe);
            assertEquals(K, r.log(rank).stream().filter("b enter MPI_Recv"::equals).count(), r::describe);
            assertEquals(1, r.log(rank).stream().filter("b enter MPI_Barrier"::equals).count(), r::describe);
        }
    }

    /** selftool over liblogb for pingpong K on `rank`, after `leadingRanks` MPI_Comm_rank calls. */
    private static List<String> expectedLog(int rank, int leadingRanks) {
        List<String> send = List.of("self enter MPI_Send", "self MPI_Comm_rank", "b enter MPI_Send",
                "b exit MPI_Send", "self exit MPI_Send");
        List<String> recv = List.of("b enter MPI_Recv", "b exit MPI_Recv");
        List<String> log = new ArrayList<>();
        for (int i = 0; i < leadingRanks; i++) {
            log.add("self MPI_Comm_rank");
        }
        for (int i = 0; i < K && rank < 2; i++) {
            log.addAll(rank == 0 ? send : recv);
            log.addAll(rank == 0 ? recv : send);
        }
        log.addAll(List.of("b enter MPI_Barrier", "b exit MPI_Barrier"));
        return log;
    }
}
