package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.List;
import java.util.Map;
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
    /**
     * Two counting levels in either order, and one alone: its calls then take the lone entries
     * (jpmpi_core.h, JPMPI_ENTER_LONE), which mark no call as on its way down; the library's own
     * PMPI_X calls are still asked about, and a call from the program's error handler is the
     * program's.
     */
    static Stream<Arguments> cases() {
        return MpiRun.implementations().flatMap(i -> Stream.of(List.of("libcount.so", "libcount2.so"),
                List.of("libcount2.so", "libcount.so"), List.of("libcount.so")).map(order -> Arguments.of(i, order)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void mpiIoCountsOnlyTheProgramsCalls(Impl impl, List<String> order) {
        Result r = run(impl, order, "mpiio");
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(1, r.countOut("mpiio rank " + rank + ": ok"), r::describe);
            bothCount(r, order, rank, Pingpong.counts(1, 0, 0, 1, 0, 1, 1));
        }
    }

    /** `program` on 3 ranks under the counting levels in `order`, ended well. */
    static Result run(Impl impl, List<String> order, String program) {
        return MpiRun.on(impl).ranks(3).levels(MpiRun.entry(order.stream().map(impl::file).toArray(String[]::new)))
                .run(program).assertSuccess();
    }

    /** Each counting level of `order` (libcount.so writes "count", libcount2.so "count2") counted `expected`. */
    static void bothCount(Result r, List<String> order, int rank, Map<String, Long> expected) {
        for (String level : order) {
            String tool = level.replace("lib", "").replace(".so", "");
            assertEquals(expected, r.counts(tool, rank), tool + "\n" + r.describe());
        }
    }

    /**
     * The other side: a call the application makes while another is on its way down is the
     * application's. errcb's error handler (its own function, which the library calls inside an
     * MPI_Send to a rank that does not exist) asks MPI_Comm_rank and receives from MPI_PROC_NULL: the
     * entry hands such a call to its cold part (jpmpi_core.h: JPMPI_ENTER_APP, and for MPI_Recv, whose
     * last argument is on the stack, JPMPI_ENTER_APP_ASM with the return address it leaves), which finds
     * the caller outside the library, so both levels count them, the MPI_Comm_rank beside main's; the
     * send returns its error through the handler and the job ends well.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aCallFromTheProgramsErrorHandlerIsTheProgramsOwn(Impl impl, List<String> order) {
        Result r = run(impl, order, "errcb");
        for (int rank = 0; rank < 3; rank++) {
            String ok = "errcb rank " + rank + ": ok ";
            assertEquals(1, r.out().stream().filter(l -> l.startsWith(ok)).count(), r::describe);
            bothCount(r, order, rank, Pingpong.counts(1, 1, 1, 1, 0, 2, 1));
        }
    }
}
