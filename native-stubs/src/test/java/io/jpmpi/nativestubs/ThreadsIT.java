package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the chain holds under MPI_THREAD_MULTIPLE: programs/threads.c runs 4 threads that each
 * call MPI_Comm_rank and MPI_Send (to MPI_PROC_NULL) 100 000 times at once, through two counting
 * levels; both count every call exactly once (no call lost, doubled, or sent to the wrong level)
 * and every MPI_Comm_rank answers the right rank.
 */
class ThreadsIT {
    static final long CALLS = 4 * 100_000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void fourThreadsThroughTwoLevels(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2)
                .levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libcount2.so")))
                .run("threads").assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, r.countOut("threads rank " + rank + ": 4x100000 calls, rank answers ok=" + CALLS),
                    r::describe);
            // MPI_Comm_rank: the threads' 400000 + the main thread's 1 (count's own query goes to the library)
            assertEquals(Pingpong.counts(1, CALLS, 0, 0, 0, CALLS + 1, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(1, CALLS, 0, 0, 0, CALLS + 1, 1), r.counts("count2", rank), r::describe);
        }
    }
}
