package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.layering.tools.LogLevel;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves Java levels nest with C levels exactly as the entry list says: a C logging tool (a), a
 * Java logging level (j) and another C logging tool (c) write to one per-rank log; in each of the
 * six orders, every MPI_Send, MPI_Recv and MPI_Barrier of pingpong enters the three levels top
 * down and leaves them bottom up. Two Java levels (jars j1 and j2) around a C level too.
 */
class JavaLevelOrderIT {
    static final int K = 3;

    static Stream<Arguments> everyOrder() {
        List<Arguments> all = new ArrayList<>();
        List<List<String>> orders = List.of(List.of("a", "j", "c"), List.of("a", "c", "j"), List.of("j", "a", "c"),
                List.of("j", "c", "a"), List.of("c", "a", "j"), List.of("c", "j", "a"));
        MpiRun.implementations().forEach(impl -> orders.forEach(o -> all.add(Arguments.of(impl, o))));
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyOrder")
    void cJavaCInEveryOrder(Impl impl, List<String> names) {
        check(impl, 2, names);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void twoJavaLevelsAroundACLevelOnFourRanks(Impl impl) {
        check(impl, 4, List.of("j1", "b", "j2"));
    }

    private static void check(Impl impl, int ranks, List<String> names) {
        String entry = MpiRun.entry(names.stream()
                .map(n -> n.startsWith("j") ? Jars.of(n, LogLevel.class) : impl.file("liblog" + n + ".so"))
                .toArray(String[]::new));
        Result r = MpiRun.on(impl).ranks(ranks).java().levels(entry).withLog().run("pingpong", Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(ranks, K)), r::describe);
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(Pingpong.log(K, rank, names), r.log(rank), "log of rank " + rank + "\n" + r.describe());
        }
    }
}
