package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calls the MPI library makes to itself are not the application's: MPICH's MPI-IO (ROMIO) opens,
 * syncs and closes a file with its own PMPI_Allreduce, PMPI_Bcast, PMPI_Barrier and
 * PMPI_Comm_rank through the dynamic symbols, which the dispatcher exports. They go to the library
 * (the entry looks at the caller: the MPI library's own code, or Open MPI's components), so two
 * counting levels in either order count exactly test-support's mpiio program: MPI_Init,
 * MPI_Comm_rank, MPI_Barrier and MPI_Finalize once each (it has no MPI_Allreduce), on both MPIs.
 */
class LibraryInternalCallsIT {
    static Stream<Arguments> cases() {
        return MpiRun.implementations().flatMap(i -> Stream.of(List.of("libcount.so", "libcount2.so"),
                List.of("libcount2.so", "libcount.so")).map(order -> Arguments.of(i, order)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void mpiIoCountsOnlyTheProgramsCalls(Impl impl, List<String> order) {
        Result r = MpiRun.on(impl).ranks(3)
                .levels(MpiRun.entry(impl.file(order.get(0)), impl.file(order.get(1))))
                .run("mpiio").assertSuccess();
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(1, r.countOut("mpiio rank " + rank + ": ok"), r::describe);
            for (String tool : List.of("count", "count2")) {
                assertEquals(Pingpong.counts(1, 0, 0, 1, 0, 1, 1), r.counts(tool, rank), tool + "\n" + r.describe());
            }
        }
    }
}
