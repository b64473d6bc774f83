package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves MPI_Pcontrol reaches every level that defines it, exactly once each, in list order: two
 * counting levels (which print "pcontrol <name> <level> rank <r>" and then call PMPI_Pcontrol)
 * print their lines in the order listed, reversed when the list is, and a level in between that
 * does not define MPI_Pcontrol changes nothing. The levels' own PMPI_Pcontrol calls deliver it no
 * second time.
 */
class PcontrolIT {
    static final int RANKS = 3;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void everyLevelInListOrder(Impl impl) {
        check(impl, List.of("count", "count2"), impl.file("libcount.so"), impl.file("libcount2.so"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void reversedList(Impl impl) {
        check(impl, List.of("count2", "count"), impl.file("libcount2.so"), impl.file("libcount.so"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void levelWithoutPcontrolInBetween(Impl impl) {
        check(impl, List.of("count", "count2"), impl.file("libcount.so"), impl.file("libloga.so"),
                impl.file("libcount2.so"));
    }

    private static void check(Impl impl, List<String> order, String... items) {
        Result r = MpiRun.on(impl).ranks(RANKS).levels(MpiRun.entry(items)).run("pingpong").assertSuccess();
        for (int rank = 0; rank < RANKS; rank++) {
            String suffix = " rank " + rank;
            List<String> got = r.out().stream().filter(l -> l.startsWith("pcontrol ") && l.endsWith(suffix)).toList();
            List<String> expected = order.stream().map(n -> "pcontrol " + n + " 2" + suffix).toList();
            assertEquals(expected, got, r::describe);
        }
    }
}
