package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the levels nest in the order of the entry list. Three copies of one ordinary logging
 * tool (tools/logtool.c: libloga.so, liblogb.so, liblogc.so) share one log file per rank; listed
 * a,b,c, every MPI_Send, MPI_Recv and MPI_Barrier of the program enters a, then b, then c, and
 * leaves c, b, a (each level's PMPI_X reached the next level's MPI_X, the last one the library);
 * listed c,b,a, the nesting is reversed. The logs are compared line by line, per rank.
 */
class LevelOrderIT {
    static final int K = 3;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void listedOrderIsTheNestingOrder(Impl impl) {
        check(impl, 3, List.of("a", "b", "c"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void reversedListReversesTheNesting(Impl impl) {
        check(impl, 3, List.of("c", "b", "a"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void anyOrderOnFourRanks(Impl impl) {
        check(impl, 4, List.of("b", "c", "a"));
    }

    private static void check(Impl impl, int ranks, List<String> names) {
        String entry = MpiRun.entry(names.stream().map(n -> impl.file("liblog" + n + ".so")).toArray(String[]::new));
        Result r = MpiRun.on(impl).ranks(ranks).levels(entry).withLog().run("pingpong", Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(ranks, K)), r::describe);
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(Pingpong.log(K, rank, names), r.log(rank), "log of rank " + rank + "\n" + r.describe());
        }
    }
}
