package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * jpmpi_level_leave (jpmpi.h): a level leaves the chain for some of its functions and every route
 * that reached it for them goes on to the next level or the library. The stack is always
 * libcount.so, libleave.so, libcount2.so (test-support's counttool.c; libleave.so is its copy that
 * leaves, LEAVE_FUNCTIONS and LEAVE_AT): the levels above and below must still count exactly the
 * program's calls, the leaving level none of the functions it left from then on.
 */
class LevelLeaveIT {
    static final String ALL_BUT = "all-but:MPI_Init,MPI_Init_thread,MPI_Finalize";

    private static MpiRun stack(Impl impl, int ranks, String leave) {
        return MpiRun.on(impl).ranks(ranks)
                .levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libleave.so"), impl.file("libcount2.so")))
                .env("LEAVE_FUNCTIONS", leave);
    }

    /** libleave.so's count line without what it adds (left, send_at, rank_at, defines_send). */
    private static Map<String, Long> counted(Result r, int rank) {
        Map<String, Long> c = new java.util.LinkedHashMap<>(r.counts("leave", rank));
        c.keySet().removeAll(java.util.Set.of("left", "send_at", "rank_at", "defines_send"));
        return c;
    }

    /**
     * threads.c (MPI_THREAD_MULTIPLE, 4 threads of 100 000 MPI_Comm_rank and MPI_Send each): the
     * level leaves MPI_Send and MPI_Comm_rank from inside its 100 000th MPI_Send wrapper while the
     * other threads call. The levels above and below count every call once; the leaving level
     * counts, after jpmpi_level_leave returned, at most the calls that had read the old route already
     * (one per other thread), and then says it no longer defines MPI_Send.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void threadsKeepCallingWhileALevelLeaves(Impl impl) {
        long calls = ThreadsIT.CALLS;
        Result r = stack(impl, 2, "MPI_Send,MPI_Comm_rank").env("LEAVE_AT", "100000").run("threads").assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, r.countOut("threads rank " + rank + ": 4x100000 calls, rank answers ok=" + calls),
                    r::describe);
            // MPI_Comm_rank: the threads' 400000 + the main thread's 1 (each count level's own query
            // after PMPI_Init goes to the library)
            assertEquals(Pingpong.counts(1, calls, 0, 0, 0, calls + 1, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(1, calls, 0, 0, 0, calls + 1, 1), r.counts("count2", rank), r::describe);
            Map<String, Long> leave = r.counts("leave", rank);
            assertEquals(2, leave.get("left"), r::describe);
            // the 100 000th call left; the other threads' calls until jpmpi_level_leave returned came here too
            assertTrue(leave.get("send_at") >= 100_000, r::describe);
            long lateSends = leave.get("MPI_Send") - leave.get("send_at");
            long lateRanks = leave.get("MPI_Comm_rank") - leave.get("rank_at");
            assertTrue(lateSends >= 0 && lateSends <= 3, () -> "sends after leaving: " + lateSends + "\n" + r.describe());
            assertTrue(lateRanks >= 0 && lateRanks <= 3, () -> "ranks after leaving: " + lateRanks + "\n" + r.describe());
            assertEquals(0, leave.get("defines_send"), r::describe);
        }
    }

    /**
     * The same leaving with libcount.so alone above: MPI_Send and MPI_Comm_rank, which two levels
     * defined, are then libcount.so's alone, and the program's calls switch to their lone entries
     * (jpmpi_core.h, JPMPI_ENTER_LONE) while 4 threads call. libcount.so still counts every call once,
     * the leaving level at most the calls that had read the old route.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theLevelAboveBecomesLoneWhileThreadsCall(Impl impl) {
        long calls = ThreadsIT.CALLS;
        Result r = MpiRun.on(impl).ranks(2).levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libleave.so")))
                .env("LEAVE_FUNCTIONS", "MPI_Send,MPI_Comm_rank").env("LEAVE_AT", "100000").run("threads")
                .assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, r.countOut("threads rank " + rank + ": 4x100000 calls, rank answers ok=" + calls),
                    r::describe);
            assertEquals(Pingpong.counts(1, calls, 0, 0, 0, calls + 1, 1), r.counts("count", rank), r::describe);
            Map<String, Long> leave = r.counts("leave", rank);
            assertEquals(2, leave.get("left"), r::describe);
            long lateSends = leave.get("MPI_Send") - leave.get("send_at");
            assertTrue(lateSends >= 0 && lateSends <= 3, () -> "sends after leaving: " + lateSends + "\n" + r.describe());
        }
    }

    static Stream<Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> Pingpong.PROGRAMS.stream().map(p -> Arguments.of(i, p)));
    }

    /**
     * Right after MPI_Init the level leaves every function but MPI_Init, MPI_Init_thread and
     * MPI_Finalize, on the C, C++ and both Fortran pingpongs with 3 ranks (the Fortran layer's
     * calls are routed again too): it counts none of the program's calls after MPI_Init, not even
     * MPI_Pcontrol, and the levels above and below count all of them.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void allButInitAndFinalizeRightAfterInit(Impl impl, String program) {
        int ranks = 3, k = 4;
        Result r = stack(impl, ranks, ALL_BUT).run(program, Integer.toString(k)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(ranks, k)), r::describe);
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(Pingpong.counts(k, rank, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(k, rank, 1), r.counts("count2", rank), r::describe);
            assertEquals(Pingpong.counts(1, 0, 0, 0, 0, 0, 1), counted(r, rank), r::describe);
            // MPI_Send, MPI_Recv, MPI_Barrier, MPI_Allreduce, MPI_Comm_rank, MPI_Pcontrol
            assertEquals(6, r.counts("leave", rank).get("left"), r::describe);
            assertEquals(1, r.countOut("pcontrol count 2 rank " + rank), r::describe);
            assertEquals(1, r.countOut("pcontrol count2 2 rank " + rank), r::describe);
            assertEquals(0, r.countOut("pcontrol leave 2 rank " + rank), r::describe);
        }
    }

    /**
     * A function no level defines any more is one jump to the library again: callerword.c reads the
     * dispatcher's caller word around its MPI_Comm_rank and MPI_Send, which every call that enters
     * a level writes. libleave.so alone: nothing left, both enter it; MPI_Comm_rank left, that one
     * is plain; all but MPI_Init and MPI_Finalize left, both are plain. With libcount.so above,
     * which defines both, leaving changes nothing: they still enter a level.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aFunctionNoLevelDefinesIsAPlainJumpAgain(Impl impl) {
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("", "MPI_Comm_rank entered MPI_Send entered");
        expected.put("MPI_Comm_rank", "MPI_Comm_rank plain MPI_Send entered");
        expected.put(ALL_BUT, "MPI_Comm_rank plain MPI_Send plain");
        expected.forEach((leave, line) -> {
            Result r = MpiRun.on(impl).ranks(2).levels(MpiRun.entry(impl.file("libleave.so")))
                    .env("LEAVE_FUNCTIONS", leave).run("callerword").assertSuccess();
            for (int rank = 0; rank < 2; rank++) {
                assertEquals(1, r.countOut("callerword rank " + rank + ": " + line), () -> leave + "\n" + r.describe());
            }
        });
        Result above = MpiRun.on(impl).ranks(2)
                .levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libleave.so"))).env("LEAVE_FUNCTIONS", ALL_BUT)
                .run("callerword").assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, above.countOut("callerword rank " + rank + ": MPI_Comm_rank entered MPI_Send entered"),
                    above::describe);
        }
    }

    /**
     * A name the dispatcher does not know: one line naming it, nothing left (the level counts every
     * call), the job unchanged.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void anUnknownNameIsSaidAndNothingLeft(Impl impl) {
        int ranks = 2, k = 3;
        Result r = stack(impl, ranks, "MPI_Send,MPI_No_such_function").run("pingpong", Integer.toString(k))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(ranks, k)), r::describe);
        for (int rank = 0; rank < ranks; rank++) {
            int at = rank;
            String said = "jpmpi (rank " + at + "): jpmpi_level_leave: level 1 named 'MPI_No_such_function', not an "
                    + "MPI function of " + impl.displayName + " ";
            assertEquals(1, r.err().stream().filter(l -> l.startsWith(said) && l.endsWith("; nothing left")).count(),
                    r::describe);
            assertEquals(Pingpong.counts(k, rank, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(k, rank, 1), counted(r, rank), r::describe);
            assertEquals(Pingpong.counts(k, rank, 1), r.counts("count2", rank), r::describe);
            assertEquals(1, r.out().stream().filter(l -> l.startsWith("count leave rank " + at + ": ")
                    && l.contains(" left=-1 ")).count(), r::describe);
        }
    }
}
